// A relay chain's parachain state as sidecar's /paras routes answer it: the paras and
// their lifecycles, leases, the current auction and crowdloans, read from the runtime's
// own metadata at one block. Each route's values go out in the wave of the block's
// version (keys guessed with the newest runtime, checked against the block's own);
// a map is listed in pages beside them, bounded, and its values read one wave later.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { bytesOfHex } from '../../decode/hex';
import { decodeEvents } from '../blocks/bodyDecoding';
import { SYSTEM_EVENTS_KEY } from '../shared/storage/wellKnownKeys';
import { atJson, readResolvedAt, type AtBlock, type ReadAt, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import { readKeysAt } from '../shared/storage/keysAtBlock';
import type { Runtime, RuntimeRegistry } from '../runtimes';
import { listKeys, readKeys } from '../shared/storage/storageBatch';
import { constantOf } from '../shared/storage/storageValues';
import { keyOf, keyPartOf, readValue, storageItemOf, type StorageMap } from '../shared/storage/storageLayout';
import { auctionWinning, currentAuction, leasePeriodIndexAt, type SlotsConstants } from './leasePeriods';

/** The most entries one answer lists of a para-keyed map (Polkadot and Kusama have a few hundred). */
export const MAX_PARA_ENTRIES = 10_000;

type Pallet = 'Paras' | 'Slots' | 'Auctions' | 'Crowdloan';
type Item = readonly [Pallet, string];

const LIFECYCLES: Item = ['Paras', 'ParaLifecycles'];
const UPCOMING_GENESIS: Item = ['Paras', 'UpcomingParasGenesis'];
const LEASES: Item = ['Slots', 'Leases'];
const FUNDS: Item = ['Crowdloan', 'Funds'];
const AUCTION_INFO: Item = ['Auctions', 'AuctionInfo'];
const AUCTION_COUNTER: Item = ['Auctions', 'AuctionCounter'];
const WINNING: Item = ['Auctions', 'Winning'];

/** How sidecar words a runtime without the pallet a route reads (a 500 there, a 400 here). */
const missing = (pallet: Pallet) => badRequest(`The runtime does not include the ${pallet.toLowerCase()} module at this block`);

function itemOf(registry: TypeRegistry, [pallet, item]: Item): StorageMap {
  const map = storageItemOf(registry, pallet, item);
  if (!map) throw missing(pallet);
  return map;
}

/** The SCALE bytes of a para id as the map's key type holds it (a u32 on every runtime so far). */
const paraKey = (registry: TypeRegistry, map: StorageMap, paraId: number) => keyOf(map, [registry.createType(map.keyTypes[0] ?? 'u32', paraId).toU8a()]);

const answer = (read: ReadAt, body: Record<string, unknown>): AnswerAt => ({
  json: JSON.stringify(toSidecarJson({ at: atJson(read), ...body })),
  hash: read.hash,
  final: read.final,
});

/** `parathread` or `parachain`: what an onboarding para's genesis arguments make it. */
function onboardingKind(genesis: Codec | null): 'parachain' | 'parathread' | undefined {
  const args = genesis as (Codec & { get(name: string): Codec | undefined }) | null;
  const kind = args?.get('paraKind') ?? args?.get('parachain');
  if (!kind) return undefined;
  const text = kind.toString().toLowerCase();
  return text === 'parachain' || text === 'true' ? 'parachain' : 'parathread';
}

const isOnboarding = (lifecycle: Codec | null) => lifecycle !== null && lifecycle.toString() === 'Onboarding';

export class ParasReads {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /** Every map entry under `item` at the block: its keys listed beside the block's version, then their values. */
  private async entriesAt(at: AtBlock, item: Item): Promise<{ read: ReadAt; runtime: Runtime; map: StorageMap; keys: Hex[]; values: (Hex | null)[] }> {
    const block = await this.ids.at(at);
    const newest = this.runtimes.newest && storageItemOf(this.runtimes.newest.registry, ...item);
    const tooMany = `More than ${MAX_PARA_ENTRIES} entries in ${item.join('.')}: fastcar does not list them in one answer.`;
    const [read, listed] = await wave([
      readResolvedAt(this.node, this.cache, block),
      newest
        ? listKeys(this.node, `0x${Buffer.from(newest.prefix).toString('hex')}`, block.hash, { maxKeys: MAX_PARA_ENTRIES, tooMany }).catch(
            (e: unknown) => e as Error,
          )
        : undefined,
    ] as const);
    const runtime = await this.runtimes.get(read.version, read.hash);
    const map = itemOf(runtime.registry, item);
    // The prefix is the item's name hashed: the same in every runtime that has it.
    const keys =
      listed === undefined
        ? await listKeys(this.node, `0x${Buffer.from(map.prefix).toString('hex')}`, read.hash, { maxKeys: MAX_PARA_ENTRIES, tooMany })
        : listed;
    if (keys instanceof Error) throw keys;
    return { read, runtime, map, keys, values: await readKeys(this.node, keys, read.hash) };
  }

  /** Per listed key: the para id it names, as a codec of the key's type. */
  private paraIdOf(registry: TypeRegistry, map: StorageMap, key: Hex): Codec | null {
    const bytes = keyPartOf(map, key);
    return bytes ? registry.createType(map.keyTypes[0] ?? 'u32', bytes) : null;
  }

  /** `/paras`: every para with its lifecycle, and what an onboarding one becomes (its upcoming genesis, one wave more). */
  async paras(at: AtBlock): Promise<AnswerAt> {
    const { read, runtime, map, keys, values } = await this.entriesAt(at, LIFECYCLES);
    const { registry } = runtime;
    const entries = keys.map((key, i) => ({ paraId: this.paraIdOf(registry, map, key), paraLifecycle: readValue(registry, map, values[i] ?? null) }));
    const onboarding = entries.filter(({ paraLifecycle }) => isOnboarding(paraLifecycle));
    const genesisMap = onboarding.length > 0 ? storageItemOf(registry, ...UPCOMING_GENESIS) : null;
    const genesis = genesisMap
      ? await readKeys(
          this.node,
          onboarding.map(({ paraId }) => keyOf(genesisMap, [paraId?.toU8a() ?? new Uint8Array()])),
          read.hash,
        )
      : [];
    const paras = entries.map((entry) => {
      const index = onboarding.indexOf(entry);
      const onboardingAs = index >= 0 && genesisMap ? onboardingKind(readValue(registry, genesisMap, genesis[index] ?? null)) : undefined;
      return { ...entry, onboardingAs };
    });
    return answer(read, { paras });
  }

  /** `/paras/crowdloans`: every crowdloan fund with the para it raises for. */
  async crowdloans(at: AtBlock): Promise<AnswerAt> {
    const { read, runtime, map, keys, values } = await this.entriesAt(at, FUNDS);
    const funds = keys.map((key, i) => ({ paraId: this.paraIdOf(runtime.registry, map, key), fundInfo: readValue(runtime.registry, map, values[i] ?? null) }));
    return answer(read, { funds });
  }

  /** `/paras/leases/current`: the lease period at the block, and (unless told not to) the paras leasing it. */
  async leasesCurrent(at: AtBlock, withHolders: boolean): Promise<AnswerAt> {
    let read: ReadAt;
    let registry: TypeRegistry;
    let currentLeaseHolders: JsonValue[] | undefined;
    if (withHolders) {
      const entries = await this.entriesAt(at, LEASES);
      ({ read } = entries);
      ({ registry } = entries.runtime);
      currentLeaseHolders = entries.keys.flatMap((key, i) => {
        const leases = readValue(registry, entries.map, entries.values[i] ?? null) as (Codec & { [index: number]: Codec & { isSome?: boolean } }) | null;
        return leases?.[0]?.isSome ? [toSidecarJson(this.paraIdOf(registry, entries.map, key))] : [];
      });
    } else {
      read = await readResolvedAt(this.node, this.cache, await this.ids.at(at));
      ({ registry } = await this.runtimes.get(read.version, read.hash));
    }
    const slots = slotsConstants(registry);
    const index = leasePeriodIndexAt(slots, BigInt(read.number));
    const endOfLeasePeriod = index === null ? null : String(index * slots.leasePeriod + slots.leasePeriod + slots.leaseOffset);
    return answer(read, { leasePeriodIndex: String(index ?? 0n), endOfLeasePeriod, currentLeaseHolders });
  }

  /** `/paras/{paraId}/lease-info`: the para's lifecycle and its leases from the current period on. */
  async leaseInfo(at: AtBlock, paraId: number): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const items = [LEASES, LIFECYCLES, UPCOMING_GENESIS] as const;
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, ({ registry }) => {
      itemOf(registry, LIFECYCLES);
      return items.map((item) => paraKey(registry, itemOf(registry, item), paraId));
    });
    const { registry } = runtime;
    const [leasesMap, lifecycleMap, genesisMap] = items.map((item) => itemOf(registry, item));
    const leases = readValue(registry, leasesMap, values[0] ?? null) as (Codec & Codec[]) | null;
    const lifecycle = readValue(registry, lifecycleMap, values[1] ?? null);
    let formatted: { leasePeriodIndex: string | null; account: Codec; deposit: Codec }[] | null = null;
    if (leases && leases.length > 0) {
      const current = leasePeriodIndexAt(slotsConstants(registry), BigInt(read.number));
      formatted = leases.flatMap((lease, i) => {
        const some = lease as Codec & { isSome: boolean; unwrap(): Codec & [Codec, Codec] };
        if (!some.isSome) return [];
        const [account, deposit] = some.unwrap();
        return [{ leasePeriodIndex: current === null ? null : String(current + BigInt(i)), account, deposit }];
      });
    }
    const onboardingAs = isOnboarding(lifecycle) ? onboardingKind(readValue(registry, genesisMap, values[2] ?? null)) : undefined;
    return answer(read, { paraLifecycle: lifecycle, onboardingAs, leases: formatted });
  }

  /** `/paras/{paraId}/crowdloan-info`: the para's crowdloan fund, and the lease periods it bids for. */
  async crowdloanInfo(at: AtBlock, paraId: number): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, ({ registry }) => {
      itemOf(registry, LIFECYCLES);
      return [paraKey(registry, itemOf(registry, FUNDS), paraId)];
    });
    const fund = readValue(runtime.registry, itemOf(runtime.registry, FUNDS), values[0] ?? null) as (Codec & { get(name: string): Codec | undefined }) | null;
    if (!fund) return answer(read, { fundInfo: null });
    const first = Number(fund.get('firstPeriod')?.toString() ?? 0);
    const last = Number(fund.get('lastPeriod')?.toString() ?? first);
    const leasePeriods = Array.from({ length: Math.max(last - first + 1, 0) }, (_, i) => String(first + i));
    return answer(read, { fundInfo: fund, leasePeriods });
  }

  /**
   * `/paras/head/included-candidates` and `/backed-candidates`: per para, the header of the
   * candidate the block's `paraInclusion` events of that kind carry (its head data), keyed by para id.
   */
  async headCandidates(at: AtBlock, kind: 'CandidateIncluded' | 'CandidateBacked'): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, () => [SYSTEM_EVENTS_KEY]);
    const events = values[0] ? decodeEvents(runtime, bytesOfHex(values[0])) : [];
    const heads: Record<string, JsonValue> = {};
    for (const event of events) {
      if (event.pallet !== 'paraInclusion' || event.method !== kind) continue;
      const [receipt, headData] = event.data;
      const descriptor = (receipt as { descriptor?: { paraId?: JsonValue; paraHead?: JsonValue } } | null)?.descriptor;
      if (!descriptor || typeof headData !== 'string') continue;
      heads[String(descriptor.paraId)] = { hash: descriptor.paraHead ?? null, ...paraHeaderJson(runtime.registry, headData) };
    }
    // As sidecar spreads them after `at`: JSON puts the numeric para ids first all the same.
    return { json: JSON.stringify({ at: atJson(read), ...heads }), hash: read.hash, final: read.final };
  }

  /** `/paras/auctions/current`: the auction at the block (its phase, periods and winning bids), nulls when none runs. */
  async auctionsCurrent(at: AtBlock): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, ({ registry }) => {
      itemOf(registry, LIFECYCLES);
      return [AUCTION_INFO, AUCTION_COUNTER].map((item) => keyOf(itemOf(registry, item), []));
    });
    const { registry } = runtime;
    const info = readValue(registry, itemOf(registry, AUCTION_INFO), values[0] ?? null) as (Codec & [Codec, Codec]) | null;
    const auctionIndex = readValue(registry, itemOf(registry, AUCTION_COUNTER), values[1] ?? null);
    const constant = (name: string) => BigInt(constantOf(registry, 'Auctions', name)?.toString() ?? '0');
    const auction = currentAuction(info ? { leasePeriodIndex: BigInt(info[0].toString()), beginEnd: BigInt(info[1].toString()) } : null, BigInt(read.number), {
      endingPeriod: constant('EndingPeriod'),
      sampleLength: constant('SampleLength'),
      leasePeriodsPerSlot: Number(constant('LeasePeriodsPerSlot')),
    });
    let winning: JsonValue = null;
    if (auction?.endingOffset !== undefined && auction.endingOffset !== null) {
      const winningMap = itemOf(registry, WINNING);
      const offsetBytes = registry.createType(winningMap.keyTypes[0] ?? 'u32', auction.endingOffset.toString()).toU8a();
      const [stored] = await readKeys(this.node, [keyOf(winningMap, [offsetBytes])], read.hash);
      const bids = readValue(registry, winningMap, stored ?? null) as (Codec & Codec[]) | null;
      winning = bids ? auctionWinning(bids, auction.leaseSets) : null;
    }
    return answer(read, {
      beginEnd: auction ? String(auction.beginEnd) : null,
      finishEnd: auction ? String(auction.finishEnd) : null,
      phase: auction?.phase ?? null,
      auctionIndex,
      leasePeriods: auction ? auction.leasePeriods.map(String) : null,
      winning,
    });
  }
}

/** A para's head data read as a Substrate header; nothing beyond the hash for a para whose head is something else. */
function paraHeaderJson(registry: TypeRegistry, headData: string): Record<string, JsonValue> {
  try {
    return toSidecarJson(registry.createType('Header', bytesOfHex(headData))) as Record<string, JsonValue>;
  } catch {
    return {};
  }
}

/** The Slots pallet's lease period and offset; a 400 on a runtime without it. */
function slotsConstants(registry: TypeRegistry): SlotsConstants {
  const period = constantOf(registry, 'Slots', 'LeasePeriod');
  if (!period) throw missing('Slots');
  return { leasePeriod: BigInt(period.toString()), leaseOffset: BigInt(constantOf(registry, 'Slots', 'LeaseOffset')?.toString() ?? '0') };
}
