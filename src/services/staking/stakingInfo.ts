// A stash's staking summary, as sidecar's /accounts/{id}/staking-info answers it on an
// Asset Hub after the 2025 migration: its controller, payee, nominations and ledger, and
// per era of the history depth whether its rewards were claimed (a validator's own
// pages; a nominator's as the first of its targets with an exposure that era records
// them). The stash's entries go out in one wave once `at` is resolved; every era's
// overview and claimed pages, for the stash or each target, in the next; a target's
// exposure pages only where an era was partly claimed.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { u8aEq, u8aToHex } from '@polkadot/util';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { badRequest, ChainStateError, NotAtThisBlockError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import type { AtBlock, AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import { readKeysAt } from '../shared/storage/keysAtBlock';
import type { RuntimeRegistry } from '../runtimes';
import { readKeys } from '../shared/storage/storageBatch';
import { storageItemOf, type StorageMap } from '../shared/storage/storageLayout';
import { constantOf } from '../shared/storage/storageValues';
import { badStakingBlock } from './babeFacts';
import { decoded, fieldOf, listOf, stakingItem, stakingKey } from './stakingCodecs';
import { bigintOf } from '../../decode/codecValues';

/** The most era entries (eras x targets, and partly claimed pages) one answer reads. */
export const MAX_CLAIM_KEYS = 10_000;

type Status = 'claimed' | 'unclaimed' | 'partially claimed' | 'undefined';

export class StakingInfo {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /** `address`: as the client wrote it (sidecar's messages name it so). */
  async info(at: AtBlock, stash: Uint8Array, address: string, withClaims: boolean): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    // The state at a hash never changes: the same question there has the same answer.
    const answerKey = `staking-info:${block.hash}:${u8aToHex(stash)}:${withClaims}`;
    const kept = await this.cache.get(answerKey);
    if (kept !== undefined) return { json: kept, hash: block.hash, final: block.final };
    const items = ['Bonded', 'Ledger', 'Payee', 'Nominators', 'Validators'] as const;
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, ({ registry }) => [
      ...items.map((item) => stakingKey(registry, stakingItem(registry, item), [stash])),
      stakingKey(registry, stakingItem(registry, 'CurrentEra'), []),
    ]);
    const { registry } = runtime;
    const bad = badStakingBlock(runtime.specName, read.number);
    if (bad) throw new NotAtThisBlockError(bad);
    const [bonded, stashLedger, payee, nominators, validatorPrefs, currentEra] = [...items, 'CurrentEra'].map((item, i) =>
      decoded(registry, stakingItem(registry, item), values[i] ?? null),
    );
    if (!bonded) throw badRequest(`The address ${address} is not a stash address.`);
    const controller = bonded.toU8a();
    const ledger = u8aEq(controller, stash) ? stashLedger : await this.ledgerOf(registry, read.hash, controller);
    if (!ledger) throw new ChainStateError(`Staking ledger could not be found for controller address "${bonded.toString()}"`);
    // Validators is a map with a default: an entry stored is what makes a validator.
    const isValidator = values[items.indexOf('Validators')] !== null && validatorPrefs !== null;
    const staking: Record<string, unknown> = {
      stash: fieldOf(ledger, 'stash'),
      total: fieldOf(ledger, 'total'),
      active: fieldOf(ledger, 'active'),
      unlocking: fieldOf(ledger, 'unlocking'),
    };
    if (withClaims) {
      if (!currentEra) throw new ChainStateError('CurrentEra is None when Some was expected');
      const depth = Number(bigintOf(constantOf(registry, 'Staking', 'HistoryDepth')));
      const first = Math.max(0, Number(bigintOf(currentEra)) - depth);
      const eras = Array.from({ length: depth }, (_, i) => first + i);
      const targets = nominators ? listOf(fieldOf(nominators, 'targets')).map((target) => target.toU8a()) : [];
      staking.claimedRewards = isValidator
        ? await this.validatorClaims(registry, read.hash, stash, eras)
        : targets.length
          ? await this.nominatorClaims(registry, read.hash, stash, targets, eras)
          : [];
    }
    const body = {
      at: { hash: read.hash, height: String(read.number) },
      controller: bonded,
      rewardDestination: payee,
      numSlashingSpans: 0,
      nominations: nominators,
      staking,
    };
    const json = JSON.stringify(toSidecarJson(body));
    this.cache.set(answerKey, json);
    return { json, hash: read.hash, final: read.final };
  }

  private async ledgerOf(registry: TypeRegistry, hash: Hex, controller: Uint8Array): Promise<Codec | null> {
    const map = stakingItem(registry, 'Ledger');
    const [value] = await readKeys(this.node, [stakingKey(registry, map, [controller])], hash);
    return decoded(registry, map, value ?? null);
  }

  /** Per era the validator was exposed in: whether its pages were paid, none, some or all. */
  private async validatorClaims(registry: TypeRegistry, hash: Hex, stash: Uint8Array, eras: number[]) {
    const facts = await this.eraFacts(registry, hash, [stash], eras);
    return eras.flatMap((era) => {
      const { overview, pages } = facts(era, stash);
      return overview ? [{ era, status: pageStatus(pages.length, pageCountOf(overview)) }] : [];
    });
  }

  /** Per era: the status of the first target with an exposure that era ('undefined' when none had one). */
  private async nominatorClaims(registry: TypeRegistry, hash: Hex, stash: Uint8Array, targets: Uint8Array[], eras: number[]) {
    const facts = await this.eraFacts(registry, hash, targets, eras);
    const chosen = eras.map((era) => {
      for (const target of targets) {
        const { overview, pages } = facts(era, target);
        if (overview) return { era, target, pages, pageCount: pageCountOf(overview) };
      }
      return { era, target: undefined, pages: [] as number[], pageCount: 0 };
    });
    // Partly paid: which page the nominator is on decides, so those pages are read (one more wave, only then).
    const partial = chosen.filter(({ target, pages, pageCount }) => target && pageStatus(pages.length, pageCount) === 'partially claimed');
    const pagedMap = storageItemOf(registry, 'Staking', 'ErasStakersPaged');
    const pageKeys = pagedMap
      ? partial.flatMap(({ era, target, pageCount }) =>
          Array.from({ length: pageCount }, (_, page) => stakingKey(registry, pagedMap, [era, target as Uint8Array, page])),
        )
      : [];
    if (pageKeys.length > MAX_CLAIM_KEYS) throw badRequest(`More than ${MAX_CLAIM_KEYS} exposure pages to read: fastcar does not read them in one answer.`);
    const pageValues = await readKeys(this.node, pageKeys, hash);
    let next = 0;
    const onPage = new Map<number, number | undefined>();
    for (const { era, pageCount } of partial) {
      let found: number | undefined;
      for (let page = 0; page < pageCount; page++) {
        const value = decoded(registry, pagedMap as StorageMap, pageValues[next++] ?? null);
        if (found === undefined && listOf(fieldOf(value, 'others')).some((one) => u8aEq((fieldOf(one, 'who') as Codec).toU8a(), stash))) found = page;
      }
      onPage.set(era, found);
    }
    return chosen.map(({ era, target, pages, pageCount }): { era: number; status: Status } => {
      if (!target) return { era, status: 'undefined' };
      const status = pageStatus(pages.length, pageCount);
      if (status !== 'partially claimed') return { era, status };
      const page = onPage.get(era);
      return { era, status: page === undefined ? 'undefined' : pages.includes(page) ? 'claimed' : 'unclaimed' };
    });
  }

  /** Each (era, validator)'s overview and claimed pages, all in one wave. */
  private async eraFacts(registry: TypeRegistry, hash: Hex, validators: Uint8Array[], eras: number[]) {
    const overviewMap = storageItemOf(registry, 'Staking', 'ErasStakersOverview');
    const claimedMap = storageItemOf(registry, 'Staking', 'ClaimedRewards') ?? storageItemOf(registry, 'Staking', 'ErasClaimedRewards');
    if (!overviewMap || !claimedMap) return () => ({ overview: null, pages: [] as number[] });
    const pairs = eras.flatMap((era) => validators.map((validator) => [era, validator] as const));
    if (pairs.length * 2 > MAX_CLAIM_KEYS) throw badRequest(`More than ${MAX_CLAIM_KEYS} era entries to read: fastcar does not read them in one answer.`);
    const keys = pairs.flatMap(([era, validator]) => [stakingKey(registry, overviewMap, [era, validator]), stakingKey(registry, claimedMap, [era, validator])]);
    const values = await readKeys(this.node, keys, hash);
    const known = new Map<string, { overview: Codec | null; pages: number[] }>();
    pairs.forEach(([era, validator], i) => {
      known.set(`${era}:${u8aToHex(validator)}`, {
        overview: decoded(registry, overviewMap, values[2 * i] ?? null),
        pages: listOf(decoded(registry, claimedMap, values[2 * i + 1] ?? null)).map((page) => Number(bigintOf(page))),
      });
    });
    return (era: number, validator: Uint8Array) => known.get(`${era}:${u8aToHex(validator)}`) ?? { overview: null, pages: [] };
  }
}

const pageCountOf = (overview: Codec) => Number(bigintOf(fieldOf(overview, 'pageCount')));

function pageStatus(claimed: number, pageCount: number): Status {
  if (claimed === 0) return 'unclaimed';
  return claimed === pageCount ? 'claimed' : 'partially claimed';
}
