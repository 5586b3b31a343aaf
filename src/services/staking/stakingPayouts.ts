// An account's staking payouts over `depth` eras up to `era`, as sidecar's
// /accounts/{id}/staking-payouts works them out: per era, each validator the account
// backed, its reward points, commission and exposure, what the account earns from it,
// and whether that was claimed. The eras go in batches of ERAS_PER_WAVE: each batch's
// exposures, rewards and points in two waves (eraExposures.ts, kept once read for closed
// eras), then every validator's era overview, preferences and claimed pages, and its
// bond and ledger, for all eras in one wave.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { u8aToHex } from '@polkadot/util';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { badRequest, ChainStateError, NotAtThisBlockError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { ASSET_HUBS } from '../assetHubMigration';
import type { AtBlock, AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { RuntimeRegistry } from '../runtimes';
import { readKeys } from '../shared/storage/storageBatch';
import { storageItemOf, type StorageMap } from '../shared/storage/storageLayout';
import { constantOf, readValuesAt } from '../shared/storage/storageValues';
import { badStakingBlock } from './babeFacts';
import { EraExposures, throwIfClientLeft, type Backing, type EraExposure, type SharedEraReads } from './eraExposures';
import { stakerPayout } from './payoutMath';
import { decoded, fieldOf, listOf, NO_STAKING, stakingItem, stakingKey } from './stakingCodecs';
import { bigintOf } from '../../decode/codecValues';

/** Eras whose exposures are read together: a 10-era request is one batch. */
export const ERAS_PER_WAVE = 12;
/** The deepest request where the runtime states no history depth (sidecar's own fallback depth). */
export const DEFAULT_HISTORY_DEPTH = 84;

/** The last era paid on the relay chain, per Asset Hub that took staking over in 2025 (sidecar's table). */
const RELAY_LAST_ERA: Record<string, number> = { westmint: 9297, 'asset-hub-paseo': 2218, statemine: 8662, statemint: 1981 };

export interface PayoutQuery {
  account: Uint8Array;
  depth: number;
  era: number | undefined;
  unclaimedOnly: boolean;
  /** Aborts when the client leaves: no further batch is started. */
  signal: AbortSignal;
}

/** The facts of one validator read at the block, per era and overall. */
interface ValidatorFacts {
  overview: Map<string, Codec | null>;
  commission: Map<string, bigint>;
  claimedPages: Map<string, Codec[]>;
  /** Its ledger where it is bonded and has one (a payout is worked out only then). */
  ledger: Map<Hex, Codec>;
}

export class StakingPayouts {
  private readonly exposures: EraExposures;

  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
    genesisHash: Hex,
    sharedEraReads: SharedEraReads,
  ) {
    this.exposures = new EraExposures(node, cache, genesisHash, sharedEraReads);
  }

  async payouts(at: AtBlock, query: PayoutQuery): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    // The state at a hash never changes: the same question there has the same answer.
    const answerKey = `staking-payouts:${block.hash}:${u8aToHex(query.account)}:${query.depth}:${query.era ?? ''}:${query.unclaimedOnly}`;
    const kept = await this.cache.get(answerKey);
    if (kept !== undefined) return { json: kept, hash: block.hash, final: block.final };
    const { read, runtime, values } = await readValuesAt(this.node, this.cache, this.runtimes, block, [
      ['Staking', 'CurrentEra'],
      ['Staking', 'ActiveEra'],
      ['Staking', 'HistoryDepth'],
    ]);
    const { registry } = runtime;
    if (!storageItemOf(registry, 'Staking', 'Ledger')) throw badRequest(NO_STAKING);
    const [currentEraValue, activeEraValue, storedDepth] = values;
    if (!currentEraValue) throw new ChainStateError('CurrentEra is None when Some was expected');
    const currentEra = Number(bigintOf(currentEraValue));
    const activeEra = activeEraValue ? Number(bigintOf(fieldOf(activeEraValue, 'index'))) : currentEra;
    if (query.era !== undefined && query.era > activeEra - 1) {
      throw badRequest(`The specified era (${query.era}) is too large. Largest era payout info is available for is ${activeEra - 1}`);
    }
    const bad = badStakingBlock(runtime.specName, read.number);
    if (bad) throw new NotAtThisBlockError(bad);
    const stated = Number(bigintOf(constantOf(registry, 'Staking', 'HistoryDepth') ?? storedDepth));
    // A runtime that keeps no history depth gets sidecar's fallback as the bound: a request's eras are always bounded.
    const historyDepth = stated > 0 ? stated : DEFAULT_HISTORY_DEPTH;
    const era = query.era ?? activeEra - 1;
    const { depth } = query;
    if (depth > historyDepth) throw badRequest('Must specify a depth less than history_depth');
    if (era - (depth - 1) < currentEra - historyDepth) {
      throw badRequest('Must specify era and depth such that era - (depth - 1) is less than or equal to current_era - history_depth.');
    }
    const lastEra = Math.max(0, era);
    const firstEra = Math.max(0, lastEra - (depth - 1));
    const relayLast = RELAY_LAST_ERA[runtime.specName];
    const migrated = relayLast !== undefined && ASSET_HUBS.has(runtime.specName);
    if (migrated && firstEra <= relayLast && firstEra <= lastEra) {
      throw badRequest(
        `Eras up to ${relayLast} were paid on the relay chain before staking moved to this Asset Hub: ` +
          'ask /rc/accounts/{accountId}/staking-payouts at a relay chain block from before the migration for them.',
      );
    }
    const eras: number[] = [];
    for (let one = firstEra; one <= lastEra; one++) eras.push(one);
    // The finalized head is final too (its answer is not kept by URL only because the head moves on).
    const exposures = await this.readEras(registry, read.hash, read.final || at === 'finalized', query, eras);
    throwIfClientLeft(query.signal);
    const facts = await this.validatorFacts(registry, read.hash, exposures);
    const erasPayouts = exposures.map((exposure) => eraPayouts(registry, query, exposure, facts)).filter((one) => !(migrated && 'message' in one));
    const body = { at: { height: String(read.number), hash: read.hash }, erasPayouts };
    const json = JSON.stringify(toSidecarJson(body));
    this.cache.set(answerKey, json);
    return { json, hash: read.hash, final: read.final };
  }

  private async readEras(registry: TypeRegistry, hash: Hex, final: boolean, query: PayoutQuery, eras: number[]): Promise<EraExposure[]> {
    const all: EraExposure[] = [];
    for (let i = 0; i < eras.length; i += ERAS_PER_WAVE) {
      throwIfClientLeft(query.signal);
      all.push(...(await this.exposures.read(registry, hash, final, query.account, eras.slice(i, i + ERAS_PER_WAVE), query.signal)));
    }
    return all;
  }

  /** Every backed validator's overview, commission and claimed pages per era, and its ledger: one wave (two for a ledger under another controller). */
  private async validatorFacts(registry: TypeRegistry, hash: Hex, eras: EraExposure[]): Promise<ValidatorFacts> {
    const overviewMap = storageItemOf(registry, 'Staking', 'ErasStakersOverview');
    const prefsMap = stakingItem(registry, 'ErasValidatorPrefs');
    const claimedMap = storageItemOf(registry, 'Staking', 'ClaimedRewards') ?? storageItemOf(registry, 'Staking', 'ErasClaimedRewards');
    const bondedMap = stakingItem(registry, 'Bonded');
    const ledgerMap = stakingItem(registry, 'Ledger');
    const pairs = eras.flatMap(({ era, backings }) => [...new Set(backings.map((backing) => backing.validator))].map((validator) => ({ era, validator })));
    const validators = [...new Set(pairs.map(({ validator }) => validator))];
    const account = (validator: Hex) => Buffer.from(validator.slice(2), 'hex');
    const perEra = (map: StorageMap | null) => (map ? pairs.map(({ era, validator }) => stakingKey(registry, map, [era, account(validator)])) : []);
    const keys = [
      ...perEra(overviewMap),
      ...perEra(prefsMap),
      ...perEra(claimedMap),
      ...validators.map((validator) => stakingKey(registry, bondedMap, [account(validator)])),
      ...validators.map((validator) => stakingKey(registry, ledgerMap, [account(validator)])),
    ];
    const values = await readKeys(this.node, keys, hash);
    let next = 0;
    const take = (map: StorageMap | null) => (map ? pairs.map(() => decoded(registry, map, values[next++] ?? null)) : pairs.map(() => null));
    const overviews = take(overviewMap);
    const prefs = take(prefsMap);
    const claimed = take(claimedMap);
    const bonded = validators.map(() => decoded(registry, bondedMap, values[next++] ?? null));
    const ledgers = validators.map(() => decoded(registry, ledgerMap, values[next++] ?? null));
    const facts: ValidatorFacts = { overview: new Map(), commission: new Map(), claimedPages: new Map(), ledger: new Map() };
    pairs.forEach(({ era, validator }, i) => {
      const key = `${era}:${validator}`;
      facts.overview.set(key, overviews[i] ?? null);
      facts.commission.set(key, bigintOf(fieldOf(prefs[i], 'commission')));
      if (claimedMap) facts.claimedPages.set(key, listOf(claimed[i]));
    });
    // A stash whose controller is another account keeps its ledger under that account.
    const elsewhere: [Hex, Hex][] = [];
    validators.forEach((validator, i) => {
      const controller = bonded[i];
      if (!controller) return;
      const controllerHex = u8aToHex(controller.toU8a());
      if (controllerHex === validator) {
        const ledger = ledgers[i];
        if (ledger) facts.ledger.set(validator, ledger);
      } else elsewhere.push([validator, controllerHex]);
    });
    if (elsewhere.length) {
      const found = await readKeys(
        this.node,
        elsewhere.map(([, controller]) => stakingKey(registry, ledgerMap, [account(controller)])),
        hash,
      );
      elsewhere.forEach(([validator], i) => {
        const ledger = decoded(registry, ledgerMap, found[i] ?? null);
        if (ledger) facts.ledger.set(validator, ledger);
      });
    }
    return facts;
  }
}

/** One era's entry: its reward and points and the account's payouts, or (no reward recorded) sidecar's message. */
function eraPayouts(registry: TypeRegistry, query: PayoutQuery, exposure: EraExposure, facts: ValidatorFacts): Record<string, unknown> {
  const { era } = exposure;
  if (exposure.reward === null && era !== 0) return { message: `No ${era > 517 ? 'ErasValidatorReward' : 'Reward'} for the era ${era}` };
  const eraPayout = BigInt(exposure.reward ?? '0');
  const eraPoints = BigInt(exposure.totalPoints);
  const staker = u8aToHex(query.account);
  const payouts: Record<string, unknown>[] = [];
  for (const backing of exposure.backings) {
    const payout = payoutOf(registry, era, staker, backing, exposure, facts, eraPayout, eraPoints);
    if (!payout || (query.unclaimedOnly && payout.claimed)) continue;
    payouts.push(payout);
  }
  return { era: String(era), totalEraRewardPoints: exposure.totalPoints, totalEraPayout: String(eraPayout), payouts };
}

function payoutOf(
  registry: TypeRegistry,
  era: number,
  staker: Hex,
  backing: Backing,
  exposure: EraExposure,
  facts: ValidatorFacts,
  eraPayout: bigint,
  eraPoints: bigint,
): Record<string, unknown> | undefined {
  const { validator } = backing;
  const points = BigInt(exposure.points[validator] ?? '0');
  if (points === 0n) return undefined;
  const key = `${era}:${validator}`;
  const overview = facts.overview.get(key) ?? null;
  const isValidator = validator === staker;
  const total = backing.clipped ? backing.clipped.total : overview ? bigintOf(fieldOf(overview, 'total')).toString() : undefined;
  const stake = isValidator ? (backing.clipped ? backing.clipped.own : overview ? bigintOf(fieldOf(overview, 'own')).toString() : undefined) : backing.stake;
  // Without the validator's era overview sidecar fails; without a ledger it leaves the validator out: both are left out.
  if (total === undefined || stake === undefined) return undefined;
  const ledger = facts.ledger.get(validator);
  if (!ledger) return undefined;
  const commission = facts.commission.get(key) ?? 0n;
  const claimed = claimedOf(era, facts.claimedPages.get(key), overview, ledger, isValidator ? undefined : backing.page);
  const payout = stakerPayout({
    eraPoints,
    eraPayout,
    validatorPoints: points,
    commission,
    stakerExposure: BigInt(stake),
    totalExposure: BigInt(total),
    isValidator,
  });
  return {
    validatorId: registry.createType('AccountId', Buffer.from(validator.slice(2), 'hex')).toString(),
    nominatorStakingPayout: String(payout),
    claimed,
    totalValidatorRewardPoints: String(points),
    validatorCommission: String(commission),
    totalValidatorExposure: total,
    nominatorExposure: stake,
  };
}

/**
 * Claimed: a nominator's own page paid, the validator's every page (the claimed-pages map),
 * or, on runtimes before it, the era in the ledger's record. Sidecar counts a nominator's
 * page as paid only when all are: the same for single-page exposures (docs/differences.md).
 */
function claimedOf(era: number, pages: Codec[] | undefined, overview: Codec | null, ledger: Codec, page: number | undefined): boolean {
  if (pages !== undefined) {
    if (pages.length === 0) return false;
    if (page !== undefined) return pages.some((one) => Number(bigintOf(one)) === page);
    return overview ? pages.length >= Number(bigintOf(fieldOf(overview, 'pageCount'))) : true;
  }
  const listed = fieldOf(ledger, 'legacyClaimedRewards') ?? fieldOf(ledger, 'claimedRewards');
  if (listed) return listOf(listed).some((one) => Number(bigintOf(one)) === era);
  const lastReward = fieldOf(ledger, 'lastReward') as (Codec & { isSome?: boolean }) | undefined;
  return lastReward?.isSome === true;
}
