// Staking's progress and validators at a block, as sidecar's /pallets/staking/progress
// and /pallets/staking/validators answer them. Every value at the block goes out in one
// wave once `at` is resolved (one state_queryStorageAt), beside the unapplied slashes'
// keys and, on an Asset Hub, the relay chain's facts at its finalized head (its session
// validators and skipped epochs: sidecar reads them at the relay's head too); the slashes'
// values, when there are any, one wave later. On a relay chain the session and epoch come
// from its BABE at the block; on an Asset Hub (no BABE of its own) they are worked out
// from the block's timestamp and the relay chain's BABE facts, as sidecar works them out.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import { badRequest, ChainStateError, NotAtThisBlockError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import type { AtBlock, ReadAt, AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import { readKeysAt } from '../shared/storage/keysAtBlock';
import type { RuntimeRegistry } from '../runtimes';
import { listKeys, readKeys } from '../shared/storage/storageBatch';
import { itemPrefix, keyOf, keyPartOf, readValue, storageItemOf, type StorageMap } from '../shared/storage/storageLayout';
import { constantOf, readValuesAt, type ItemName } from '../shared/storage/storageValues';
import { ASSET_HUB_BABE, badStakingBlock } from './babeFacts';
import { eraPrefix } from './stakingCodecs';
import { bigintOf } from '../../decode/codecValues';

/** The most entries a listed staking map may hold in one answer (validators, slashes). */
export const MAX_STAKING_ENTRIES = 10_000;

const NO_STAKING = 'Staking pallet not found for queried runtime';
const NO_POOLS = 'The runtime does not include the NominationPools pallet at this block.';

/** What /pallets/nomination-pools/info answers, in sidecar's order: each the pallet's item of that name. */
const POOL_INFO_FIELDS = [
  'counterForBondedPools',
  'counterForMetadata',
  'counterForPoolMembers',
  'counterForReversePoolIdLookup',
  'counterForRewardPools',
  'counterForSubPoolsStorage',
  'lastPoolId',
  'maxPoolMembers',
  'maxPoolMembersPerPool',
  'maxPools',
  'minCreateBond',
  'minJoinBond',
] as const;

/** The relay chain's side of an Asset Hub's staking progress, read at the relay's finalized head. */
export interface RelayStakingFacts {
  validators: string[];
  /** BABE's (epoch, session) pairs for epochs that were skipped. */
  skippedEpochs: [bigint, bigint][];
  specName: string;
  epochDuration: bigint | undefined;
}

const PROGRESS_ITEMS = [
  ['Staking', 'ValidatorCount'],
  ['Staking', 'ForceEra'],
  ['Staking', 'ActiveEra'],
  ['Staking', 'BondedEras'],
  ['Staking', 'EraElectionStatus'],
  ['Timestamp', 'Now'],
  ['Session', 'Validators'],
  ['Session', 'CurrentIndex'],
  ['Babe', 'CurrentSlot'],
  ['Babe', 'EpochIndex'],
  ['Babe', 'GenesisSlot'],
] as const satisfies readonly ItemName[];

export class StakingReads {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /** On the relay chain: its session validators, skipped epochs, spec name and epoch length, at its finalized head. */
  async relayFacts(): Promise<RelayStakingFacts> {
    const block = await this.ids.at('finalized');
    const { runtime, values } = await readValuesAt(this.node, this.cache, this.runtimes, block, [
      ['Session', 'Validators'],
      ['Babe', 'SkippedEpochs'],
    ]);
    const [validators, skipped] = values as [Codec[] | null | undefined, Codec[] | null | undefined];
    return {
      validators: (validators ?? []).map((account) => account.toString()),
      skippedEpochs: (skipped ?? []).map((pair) => {
        const [epoch, session] = pair as unknown as [Codec, Codec];
        return [bigintOf(epoch), bigintOf(session)];
      }),
      specName: runtime.specName,
      epochDuration: optionalBig(constantOf(runtime.registry, 'Babe', 'EpochDuration')),
    };
  }

  /** `relay`: the relay chain's reads, for an Asset Hub (undefined: none configured, `why` says what is missing). */
  async progress(at: AtBlock, relay: (() => StakingReads) | undefined, why: string): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const newest = this.runtimes.newest?.registry;
    // An Asset Hub has no BABE of its own: its relay chain's facts go out in the same wave.
    const needsRelay = newest ? storageItemOf(newest, 'Babe', 'CurrentSlot') === null : relay !== undefined;
    const [atBlock, slashKeys, relayFacts] = await wave([
      readValuesAt(this.node, this.cache, this.runtimes, block, PROGRESS_ITEMS),
      listKeys(this.node, itemPrefix('Staking', 'UnappliedSlashes'), block.hash, {
        maxKeys: MAX_STAKING_ENTRIES,
        tooMany: `More than ${MAX_STAKING_ENTRIES} unapplied slashes: fastcar does not list them in one answer.`,
      }).catch((error: unknown) => error as Error),
      needsRelay && relay
        ? relay()
            .relayFacts()
            .catch((error: unknown) => error as Error)
        : undefined,
    ] as const);
    const { read, runtime, values } = atBlock;
    const { registry } = runtime;
    if (storageItemOf(registry, 'Staking', 'ActiveEra') === null) throw badRequest(NO_STAKING);
    const bad = badStakingBlock(runtime.specName, read.number);
    if (bad) throw new NotAtThisBlockError(bad);
    const [validatorCount, forceEra, activeEraInfo, bondedEras, electionStatus, now, validators, currentIndex, currentSlot, epochIndex, genesisSlot] = values;
    const ownBabe = storageItemOf(registry, 'Babe', 'CurrentSlot') !== null;
    if (!ownBabe && !relay) throw badRequest(why);
    if (relayFacts instanceof Error) throw relayFacts;
    if (slashKeys instanceof Error) throw slashKeys;
    const facts = ownBabe ? undefined : (relayFacts ?? (await (relay as () => StakingReads)().relayFacts()));
    if (!activeEraInfo) throw new ChainStateError('ActiveEra is None when Some was expected.');
    const activeEra = bigintOf((activeEraInfo as unknown as { index: Codec }).index);
    const eraStart = ((bondedEras ?? []) as unknown as [Codec, Codec][]).filter(([era]) => bigintOf(era) === activeEra).pop()?.[1];
    if (eraStart === undefined) throw new ChainStateError('EraStartSessionIndex is None when Some was expected.');
    const sessionsPerEra = bigintOf(constantOf(registry, 'Staking', 'SessionsPerEra'));
    let session: SessionProgress;
    if (facts) {
      const babe = ASSET_HUB_BABE[runtime.specName];
      if (!babe) throw badRequest(`Staking progress is not known for ${runtime.specName}: its relay chain's BABE facts are not in fastcar's table.`);
      session = assetHubSession(bigintOf(now), babe, facts.skippedEpochs, bigintOf(eraStart), sessionsPerEra);
    } else {
      const epochDuration = bigintOf(constantOf(registry, 'Babe', 'EpochDuration'));
      session = relaySession(
        { currentSlot: bigintOf(currentSlot), epochIndex: bigintOf(epochIndex), genesisSlot: bigintOf(genesisSlot) },
        bigintOf(currentIndex),
        epochDuration,
        bigintOf(eraStart),
        sessionsPerEra,
      );
    }
    const height = BigInt(read.number);
    const nextSession = session.sessionLength - session.sessionProgress + height;
    const validatorSet = facts ? facts.validators : ((validators ?? []) as Codec[]).map((account) => account.toString());
    const slashes = await this.unappliedSlashes(registry, read, slashKeys);
    const base = {
      at: { hash: read.hash, height: String(read.number) },
      activeEra: String(activeEra),
      forceEra: forceEra?.toJSON() ?? null,
      nextSessionEstimate: String(nextSession),
      unappliedSlashes: slashes,
      validatorSet,
    };
    const force = String(forceEra?.toJSON() ?? '');
    if (force === 'ForceNone') return answer(read, base);
    const nextActiveEra = force === 'ForceAlways' ? nextSession : session.eraLength - session.eraProgress + height;
    const lookAhead = electionLookAhead(registry, facts, runtime.specName);
    const nextCurrentEra =
      nextActiveEra - height - session.sessionLength > 0n ? nextActiveEra - session.sessionLength : nextActiveEra + session.eraLength - session.sessionLength;
    const isClose = (electionStatus as (Codec & { isClose?: boolean }) | null | undefined)?.isClose === true;
    const toggle = lookAhead === 0n ? null : isClose ? nextCurrentEra - lookAhead : nextCurrentEra;
    return answer(read, {
      ...base,
      nextActiveEraEstimate: String(nextActiveEra),
      electionStatus: electionStatus ? { status: electionStatus.toJSON(), toggleEstimate: toggle === null ? null : String(toggle) } : 'Deprecated, see docs',
      idealValidatorCount: String(bigintOf(validatorCount)),
      validatorSet,
    });
  }

  /** Every validator (address, active or waiting, commission, blocked), and those active but no longer validating. */
  async validators(at: AtBlock): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const tooMany = `More than ${MAX_STAKING_ENTRIES} validators: fastcar does not list them in one answer.`;
    const [atBlock, keys] = await wave([
      readValuesAt(this.node, this.cache, this.runtimes, block, [
        ['Staking', 'ActiveEra'],
        ['Staking', 'CurrentEra'],
        ['Session', 'Validators'],
      ]),
      listKeys(this.node, itemPrefix('Staking', 'Validators'), block.hash, { maxKeys: MAX_STAKING_ENTRIES, tooMany }).catch((error: unknown) => error as Error),
    ] as const);
    const { read, runtime, values } = atBlock;
    const { registry } = runtime;
    const map = storageItemOf(registry, 'Staking', 'Validators');
    if (!map) throw badRequest(NO_STAKING);
    const bad = badStakingBlock(runtime.specName, read.number);
    if (bad) throw new NotAtThisBlockError(bad);
    if (keys instanceof Error) throw keys;
    const [activeEraInfo, currentEra, sessionValidators] = values;
    // The active set: the era's exposures where the runtime keeps them (paged staking), else the session's validators.
    const overview = storageItemOf(registry, 'Staking', 'ErasStakersOverview');
    let active: Set<string>;
    let prefs: (Hex | null)[];
    if (overview) {
      const era = activeEraInfo ? (activeEraInfo as unknown as { index: Codec }).index : currentEra;
      if (!era) throw new ChainStateError('No active or current era was found');
      const prefix = eraPrefix(registry, overview, Number(era.toString()));
      const [exposed, values] = await wave([
        listKeys(this.node, prefix, read.hash, { maxKeys: MAX_STAKING_ENTRIES, tooMany }),
        readKeys(this.node, keys, read.hash),
      ] as const);
      const accountType = overview.keyTypes[1] ?? 'AccountId';
      active = new Set(exposed.map((key) => registry.createType(accountType, hexBytes(key).subarray(prefix.length / 2 - 1 + 8)).toString()));
      prefs = values;
    } else {
      active = new Set(((sessionValidators ?? []) as Codec[]).map((account) => account.toString()));
      prefs = await readKeys(this.node, keys, read.hash);
    }
    const accountType = map.keyTypes[0] ?? 'AccountId';
    const validators: JsonValue[] = keys.map((key, i) => {
      const address = registry.createType(accountType, keyPartOf(map, key)).toString();
      const status = active.delete(address) ? 'active' : 'waiting';
      const stored = readValue(registry, map, prefs[i] ?? null) as (Codec & { get(name: string): Codec | undefined }) | null;
      const commission = stored?.get('commission');
      const blocked = stored?.get('blocked');
      return { address, status, commission: commission ? commission.toString() : undefined, blocked: blocked ? blocked.toJSON() === true : false } as JsonValue;
    });
    const toBeChilled = [...active].map((address) => ({ address, status: 'active' }));
    return answer(read, {
      at: { hash: read.hash, height: String(read.number) },
      validators: [...validators, ...toBeChilled],
      validatorsToBeChilled: toBeChilled,
    });
  }

  /** The nomination pools' counters and bounds. */
  async poolsInfo(at: AtBlock): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const { read, values } = await readValuesAt(
      this.node,
      this.cache,
      this.runtimes,
      block,
      POOL_INFO_FIELDS.map((field) => ['NominationPools', field.charAt(0).toUpperCase() + field.slice(1)] as const),
    );
    if (values.every((value) => value === undefined)) throw badRequest(NO_POOLS);
    const body: Record<string, unknown> = { at: { hash: read.hash, height: String(read.number) } };
    POOL_INFO_FIELDS.forEach((field, i) => {
      body[field] = values[i] ?? null;
    });
    return answer(read, body);
  }

  /** One pool's bonded and reward parts (null where there is no such pool), and with `withMetadata` its metadata. */
  async pool(at: AtBlock, poolId: number, withMetadata: boolean): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const items = ['BondedPools', 'RewardPools', ...(withMetadata ? ['Metadata'] : [])];
    const keysFor = ({ registry }: { registry: TypeRegistry }) =>
      items.map((item) => {
        const map = storageItemOf(registry, 'NominationPools', item);
        if (!map) throw badRequest(NO_POOLS);
        let id: Uint8Array;
        try {
          id = registry.createType(map.keyTypes[0] ?? 'u32', poolId).toU8a();
        } catch {
          throw badRequest(`Pool id ${poolId} is not a pool id of this chain.`);
        }
        return keyOf(map, [id]);
      });
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, keysFor);
    const stored = (i: number) =>
      readValue(runtime.registry, storageItemOf(runtime.registry, 'NominationPools', items[i] ?? '') as StorageMap, values[i] ?? null);
    const body: Record<string, unknown> = { at: { hash: read.hash, height: String(read.number) }, bondedPool: stored(0), rewardPool: stored(1) };
    if (withMetadata) body.metadata = stored(2)?.toString() ?? '';
    return answer(read, body);
  }

  /** Each slash not yet applied, with its era (the map's first key part). */
  private async unappliedSlashes(registry: TypeRegistry, read: ReadAt, keys: Hex[]): Promise<JsonValue[]> {
    const map = storageItemOf(registry, 'Staking', 'UnappliedSlashes');
    if (!map || keys.length === 0) return [];
    const values = await readKeys(this.node, keys, read.hash);
    const eraType = map.keyTypes[0] ?? 'u32';
    return keys.flatMap((key, i) => {
      const stored = readValue(registry, map, values[i] ?? null);
      const eraBytes = keyPartOf(map, key);
      if (!stored || !eraBytes) return [];
      const era = registry.createType(eraType, eraBytes.subarray(0, registry.createType(eraType).encodedLength)).toString();
      const slashes = Array.isArray(stored) ? (stored as Codec[]) : [stored];
      return slashes.map((slash) => ({ era, ...(toSidecarJson(slash) as Record<string, JsonValue>) }));
    });
  }
}

interface SessionProgress {
  eraLength: bigint;
  eraProgress: bigint;
  sessionLength: bigint;
  sessionProgress: bigint;
}

/** A relay chain's own: the epoch's start slot from BABE, the era's start from bonded eras. */
function relaySession(
  babe: { currentSlot: bigint; epochIndex: bigint; genesisSlot: bigint },
  currentIndex: bigint,
  sessionLength: bigint,
  eraStartSession: bigint,
  sessionsPerEra: bigint,
): SessionProgress {
  const epochStartSlot = babe.epochIndex * sessionLength + babe.genesisSlot;
  const sessionProgress = babe.currentSlot - epochStartSlot;
  return {
    eraLength: sessionsPerEra * sessionLength,
    eraProgress: (currentIndex - eraStartSession) * sessionLength + sessionProgress,
    sessionLength,
    sessionProgress,
  };
}

/** An Asset Hub's: the relay's slot and epoch worked out from the block's timestamp, its session from the skipped epochs. */
export function assetHubSession(
  timestampMs: bigint,
  babe: { epochDuration: bigint; genesisSlot: bigint; slotDurationMs: bigint },
  skippedEpochs: [bigint, bigint][],
  eraStartSession: bigint,
  sessionsPerEra: bigint,
): SessionProgress {
  const currentSlot = timestampMs / babe.slotDurationMs;
  const epochIndex = (currentSlot - babe.genesisSlot) / babe.epochDuration;
  const sessionIndex = sessionOfEpoch(epochIndex, skippedEpochs);
  const sessionProgress = currentSlot - (epochIndex * babe.epochDuration + babe.genesisSlot);
  return {
    eraLength: sessionsPerEra * babe.epochDuration,
    eraProgress: (sessionIndex - eraStartSession) * babe.epochDuration + sessionProgress,
    sessionLength: babe.epochDuration,
    sessionProgress,
  };
}

/** Sessions cannot be skipped, epochs can: the last skip at or before the epoch fixes how far sessions trail epochs. */
export function sessionOfEpoch(epochIndex: bigint, skippedEpochs: [bigint, bigint][]): bigint {
  const before = [...skippedEpochs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).filter(([epoch]) => epoch <= epochIndex);
  const last = before.pop();
  return last ? epochIndex - (last[0] - last[1]) : epochIndex;
}

/** The runtime's election look-ahead constant, or the epoch length over 16 (Polkadot) or 4 (the others), as sidecar derives it. */
function electionLookAhead(registry: TypeRegistry, relay: RelayStakingFacts | undefined, ownSpecName: string): bigint {
  const declared = constantOf(registry, 'Staking', 'ElectionLookahead');
  if (declared) return bigintOf(declared);
  const specName = relay?.specName ?? ownSpecName;
  const epochDuration = relay ? (relay.epochDuration ?? 0n) : bigintOf(constantOf(registry, 'Babe', 'EpochDuration'));
  return epochDuration / (specName === 'polkadot' ? 16n : 4n);
}

function optionalBig(codec: Codec | undefined): bigint | undefined {
  return codec === undefined ? undefined : bigintOf(codec);
}

const hexBytes = (hex: Hex) => Buffer.from(hex.slice(2), 'hex');

function answer(read: ReadAt, body: Record<string, unknown>): AnswerAt {
  return { json: JSON.stringify(toSidecarJson(body)), hash: read.hash, final: read.final };
}
