// A coretime chain's side of coretime (the Broker pallet), as sidecar's /coretime routes
// answer it there: the sale and its configuration, leases, reservations, regions,
// potential renewals, and each core's workload and plan. Every item's key is fixed by
// its pallet and item names, so one wave carries the block's version, the plain values
// and the first page of each map's keys; the maps' values follow one wave later.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { atJson, readResolvedAt, type ReadAt, type ResolvedAt, type AnswerAt } from '../shared/at/blockAt';
import type { RuntimeRegistry } from '../runtimes';
import { listKeys, readKeys } from '../shared/storage/storageBatch';
import { itemPrefix, keyPartOf, readValue, storageItemOf } from '../shared/storage/storageLayout';
import { constantOf, type ItemName } from '../shared/storage/storageValues';
import {
  byCore,
  corePriceAt,
  fieldOf,
  itemsOf,
  leaseJson,
  optional,
  regionJson,
  renewalJson,
  reservationJson,
  salePhases,
  workloadItem,
  workplanItem,
} from './brokerJson';
import { bigintOf, type Struct } from '../../decode/codecValues';

/** The most entries one answer lists of a Broker map (regions, renewals, workloads, workplans). */
export const MAX_BROKER_ENTRIES = 10_000;

const CONFIGURATION: ItemName = ['Broker', 'Configuration'];
const SALE_INFO: ItemName = ['Broker', 'SaleInfo'];
const STATUS: ItemName = ['Broker', 'Status'];
const LEASES: ItemName = ['Broker', 'Leases'];
const RESERVATIONS: ItemName = ['Broker', 'Reservations'];
const WORKLOAD: ItemName = ['Broker', 'Workload'];
const WORKPLAN: ItemName = ['Broker', 'Workplan'];
const REGIONS: ItemName = ['Broker', 'Regions'];
const RENEWALS: ItemName = ['Broker', 'PotentialRenewals'];
/** The relay block the chain last built on: the Broker's clock. */
const RELAY_NUMBER: ItemName = ['ParachainSystem', 'LastRelayChainBlockNumber'];

export const hasBroker = (registry: TypeRegistry) => registry.metadata.pallets.some((pallet) => pallet.name.eq('Broker'));

interface MapEntry {
  id: Codec;
  value: Codec | null;
}

interface Gathered {
  read: ReadAt;
  plain: (Codec | null)[];
  maps: MapEntry[][];
}

const answer = (read: ReadAt, body: Record<string, unknown>): AnswerAt => ({
  json: JSON.stringify(toSidecarJson({ at: atJson(read), ...body })),
  hash: read.hash,
  final: read.final,
});

/** Each core's workload: the first item of its schedule (null when the schedule is empty), by core. */
function workloadsOf(entries: MapEntry[]) {
  return byCore(entries.map(({ id, value }) => ({ core: Number(id.toString()), info: itemsOf(value)[0] ? workloadItem(itemsOf(value)[0] as Struct) : null })));
}

export class BrokerReads {
  constructor(
    private readonly node: NodeClient,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /** `/coretime/info`: the configuration, the region in use, the cores on sale with today's price, and the sale's phases. */
  async info(block: ResolvedAt): Promise<AnswerAt> {
    const { read, plain, registry } = await this.gather(block, [CONFIGURATION, SALE_INFO, STATUS, RELAY_NUMBER], []);
    const [config, sale, status, relayNumber] = plain;
    const perTimeslice = bigintOf(constantOf(registry, 'Broker', 'TimeslicePeriod'));
    const regionLength = config ? bigintOf(fieldOf(config, 'regionLength')) : null;
    const regionBegin = sale ? bigintOf(fieldOf(sale, 'regionBegin')) : null;
    const leadinLength = bigintOf(fieldOf(sale ?? config, 'leadinLength'));
    const regionStart = regionBegin !== null && regionLength !== null ? regionBegin - regionLength : null;
    const cores = sale && {
      available: bigintOf(fieldOf(sale, 'coresOffered')) - bigintOf(fieldOf(sale, 'coresSold')),
      sold: fieldOf(sale, 'coresSold'),
      total: fieldOf(sale, 'coresOffered'),
      // The Broker's clock is the relay chain's block number, not this chain's.
      currentCorePrice: corePriceAt(bigintOf(relayNumber), bigintOf(fieldOf(sale, 'saleStart')), leadinLength, bigintOf(fieldOf(sale, 'endPrice'))),
      selloutPrice: optional(fieldOf(sale, 'selloutPrice')) ?? undefined,
      firstCore: fieldOf(sale, 'firstCore'),
    };
    const phase =
      config && regionStart !== null && regionLength !== null
        ? salePhases({
            currentRegionStart: regionStart,
            regionLength,
            interludeLength: bigintOf(fieldOf(config, 'interludeLength')),
            leadinLength,
            lastCommittedTimeslice: bigintOf(fieldOf(status, 'lastCommittedTimeslice')),
            relayBlocksPerTimeslice: perTimeslice,
          })
        : null;
    return answer(read, {
      configuration: config && {
        regionLength,
        interludeLength: fieldOf(config, 'interludeLength'),
        leadinLength,
        relayBlocksPerTimeslice: perTimeslice,
      },
      currentRegion: { start: regionStart, end: regionBegin },
      cores,
      phase,
    });
  }

  /** `/coretime/leases`: each lease with the core whose workload serves its task. */
  async leases(block: ResolvedAt): Promise<AnswerAt> {
    const { read, plain, maps } = await this.gather(block, [LEASES], [WORKLOAD]);
    const workloads = workloadsOf(maps[0] ?? []);
    const leases = itemsOf(plain[0]).map((lease) => {
      const task = fieldOf(lease, 'task')?.toString();
      return leaseJson(lease, workloads.find(({ info }) => info?.task === task)?.core);
    });
    return answer(read, { leases: byCore(leases) });
  }

  /** `/coretime/regions`: every region, by core. */
  async regions(block: ResolvedAt): Promise<AnswerAt> {
    const { read, maps } = await this.gather(block, [], [REGIONS]);
    return answer(read, { regions: this.regionsOf(maps[0] ?? []) });
  }

  /** `/coretime/renewals`: every potential renewal, by core. */
  async renewals(block: ResolvedAt): Promise<AnswerAt> {
    const { read, maps } = await this.gather(block, [], [RENEWALS]);
    const renewals = (maps[0] ?? []).map(({ id, value }) => renewalJson(id as Struct, value as Struct | null));
    return answer(read, { renewals: byCore(renewals) });
  }

  /** `/coretime/reservations`: the cores reserved for system chains and the pool. */
  async reservations(block: ResolvedAt): Promise<AnswerAt> {
    const { read, plain } = await this.gather(block, [RESERVATIONS], []);
    return answer(read, { reservations: itemsOf(plain[0]).map((schedule) => reservationJson(itemsOf(schedule))) });
  }

  /** `/coretime/overview`: each core with its workload, its plan, what kind of core it is, and its regions. */
  async overview(block: ResolvedAt): Promise<AnswerAt> {
    const { read, plain, maps } = await this.gather(block, [LEASES, RESERVATIONS], [WORKLOAD, WORKPLAN, REGIONS]);
    const [workloadEntries = [], workplanEntries = [], regionEntries = []] = maps;
    const leases = itemsOf(plain[0]).map((lease) => leaseJson(lease, undefined));
    const reservations = itemsOf(plain[1]).map((schedule) => reservationJson(itemsOf(schedule)));
    const workplans = byCore(
      workplanEntries.map(({ id, value }) => {
        const [timeslice, core] = [...(id as unknown as Codec[])].map((part) => Number(part.toString()));
        return { core: core ?? 0, timeslice, info: itemsOf(optional(value)).map(workplanItem) };
      }),
    );
    const regions = this.regionsOf(regionEntries);
    const cores = workloadsOf(workloadEntries).map(({ core, info }) => {
      const task = info?.task;
      const reservation = reservations.find((one) => one.task === task);
      const lease = leases.find((one) => one.task === task);
      let type: { condition: string; details?: Record<string, unknown> };
      if (task === undefined) type = { condition: 'idle' };
      else if (reservation) type = task === 'Pool' ? { condition: 'ondemand' } : { condition: 'reservation', details: { mask: reservation.mask } };
      else if (lease) type = { condition: 'lease', details: { until: lease.until } };
      else type = { condition: 'bulk' };
      return {
        coreId: core,
        paraId: task ?? null,
        workload: info,
        workplan: workplans.filter((plan) => plan.core === core),
        type,
        regions: regions.filter((region) => region.core === core),
      };
    });
    return answer(read, { cores });
  }

  private regionsOf(entries: MapEntry[]) {
    return byCore(entries.map(({ id, value }) => regionJson(id as Struct, value as Struct | null)));
  }

  /**
   * The plain values and every entry of the maps at the block, decoded with its runtime; a 400
   * in sidecar's words when that runtime has no Broker pallet.
   */
  private async gather(block: ResolvedAt, plain: readonly ItemName[], maps: readonly ItemName[]): Promise<Gathered & { registry: TypeRegistry }> {
    const bound = ([pallet, item]: ItemName) => ({
      maxKeys: MAX_BROKER_ENTRIES,
      tooMany: `More than ${MAX_BROKER_ENTRIES} entries in ${pallet}.${item}: fastcar does not list them in one answer.`,
    });
    const [read, plainValues, listed] = await wave([
      readResolvedAt(this.node, this.cache, block),
      readKeys(
        this.node,
        plain.map(([pallet, item]) => itemPrefix(pallet, item)),
        block.hash,
      ),
      Promise.all(maps.map((name) => listKeys(this.node, itemPrefix(name[0], name[1]), block.hash, bound(name)))),
    ] as const);
    const { registry } = await this.runtimes.get(read.version, read.hash);
    if (!hasBroker(registry)) throw badRequest('The runtime does not include the broker module at this block');
    const keys: Hex[] = listed.flat();
    const values = await readKeys(this.node, keys, read.hash);
    let next = 0;
    const entries = maps.map(([pallet, item], i) => {
      const map = storageItemOf(registry, pallet, item);
      return (listed[i] ?? []).flatMap((key) => {
        const value = values[next++] ?? null;
        const part = map && keyPartOf(map, key);
        if (!map || !part) return [];
        return [{ id: registry.createType(map.keyTypes[0] ?? 'u32', part), value: readValue(registry, map, value) }];
      });
    });
    const decoded = plain.map(([pallet, item], i) => {
      const map = storageItemOf(registry, pallet, item);
      return map ? readValue(registry, map, plainValues[i] ?? null) : null;
    });
    return { read, registry, plain: decoded, maps: entries };
  }
}
