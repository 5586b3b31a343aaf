// The /coretime routes: on a coretime chain the Broker pallet's side (brokerReads.ts);
// on a relay chain its own side, as sidecar's /coretime/info and /coretime/overview
// answer it there: the broker's para id and the on-demand pallet's bounds, and which
// para works on which core. The core assignments were kept by the
// CoretimeAssignmentProvider pallet, and since 2025 by ParaScheduler (Westend 40 and
// later); fastcar reads whichever the block's runtime has. One wave once `at` is
// resolved, beside the block's version: the descriptors, and the para-keyed maps listed.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { hexToU8a, u8aToHex } from '@polkadot/util';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { atJson, readResolvedAt, type AtBlock, type ResolvedAt, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import { readKeysAt } from '../shared/storage/keysAtBlock';
import type { RuntimeRegistry } from '../runtimes';
import { listKeys, readKeys } from '../shared/storage/storageBatch';
import { constantOf } from '../shared/storage/storageValues';
import { itemPrefix, keyOf, keyPartOf, readValue, storageItemOf, type StorageMap } from '../shared/storage/storageLayout';
import { BrokerReads, hasBroker } from './brokerReads';
import type { Optional, Struct } from '../../decode/codecValues';

/** The most entries one answer lists of a map (paras, core schedules). */
export const MAX_CORETIME_ENTRIES = 10_000;

const ASSIGNER_PALLETS = ['CoretimeAssignmentProvider', 'ParaScheduler'] as const;

const storageVersionKey = (pallet: string): Hex => itemPrefix(pallet, ':__STORAGE_VERSION__:');
const hexOf = (bytes: Uint8Array): Hex => u8aToHex(bytes);
const optional = (value: Codec | undefined) => ((value as Optional | undefined)?.isSome ? (value as Optional).unwrap() : null);

/** Which pallet keeps the core assignments in this runtime; a 400 with sidecar's words on a chain that is not a relay chain with coretime. */
function assignerOf(registry: TypeRegistry): (typeof ASSIGNER_PALLETS)[number] {
  const has = (name: string) => registry.metadata.pallets.some((pallet) => pallet.name.eq(name));
  if (!has('OnDemandAssignmentProvider')) throw badRequest('The runtime does not include the onDemandAssignmentProvider module at this block');
  const pallet = ASSIGNER_PALLETS.find((name) => storageItemOf(registry, name, 'CoreDescriptors'));
  if (!pallet) throw badRequest('The runtime does not include the coretimeAssignmentProvider module at this block');
  return pallet;
}

/** A core's descriptor as sidecar lays it out: its current work (each assignment's task and share) and its queue. */
function descriptorJson(descriptor: Struct): { tasks: string[]; info: JsonValue } {
  const work = optional(descriptor.get('currentWork')) as Struct | null;
  const queue = optional(descriptor.get('queue')) as Struct | null;
  const pairs = (work?.get('assignments') as (Codec & [Codec & { isPool: boolean; isTask: boolean; asTask: Codec }, Struct][]) | undefined) ?? [];
  const assignments = [...pairs].map(([assignment, state]) => ({
    isPool: assignment.isPool,
    isTask: assignment.isTask,
    ratio: state.get('ratio'),
    remaining: state.get('remaining'),
    task: assignment.isTask ? assignment.asTask.toString() : assignment.isPool ? 'Pool' : 'Idle',
  }));
  const info = toSidecarJson({
    currentWork: { assignments, endHint: optional(work?.get('endHint')), pos: work?.get('pos') ?? 0, step: work?.get('step') ?? 0 },
    queue: { first: queue?.get('first') ?? 0, last: queue?.get('last') ?? 0 },
  });
  return { tasks: assignments.map(({ task }) => task), info };
}

export class CoretimeReads {
  private readonly broker: BrokerReads;

  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {
    this.broker = new BrokerReads(node, cache, runtimes);
  }

  /**
   * The block, and whether its chain is a coretime chain: told by the newest runtime loaded
   * (so the reads go out with the block's version); each side then checks the block's own.
   */
  private async chainAt(at: AtBlock): Promise<{ block: ResolvedAt; broker: boolean }> {
    const block = await this.ids.at(at);
    const newest = this.runtimes.newest?.registry;
    if (newest) return { block, broker: hasBroker(newest) };
    const read = await readResolvedAt(this.node, this.cache, block);
    return { block, broker: hasBroker((await this.runtimes.get(read.version, read.hash)).registry) };
  }

  /** `/coretime/info`: on a relay chain the broker's para id, the assigner pallet's version, the on-demand revenue history's length. */
  async info(at: AtBlock): Promise<AnswerAt> {
    const { block, broker } = await this.chainAt(at);
    if (broker) return this.broker.info(block);
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, ({ registry }) => [
      storageVersionKey(assignerOf(registry)),
    ]);
    const { registry } = runtime;
    // Given as bytes: a hex string would be read as a big-endian number.
    const version = registry.createType('u16', values[0] ? hexToU8a(values[0]) : new Uint8Array(2));
    const body = {
      at: atJson(read),
      brokerId: constantOf(registry, 'Coretime', 'BrokerId') ?? null,
      palletVersion: version,
      maxHistoricalRevenue: constantOf(registry, 'OnDemandAssignmentProvider', 'MaxHistoricalRevenue') ?? null,
    };
    return { json: JSON.stringify(toSidecarJson(body)), hash: read.hash, final: read.final };
  }

  /** `/coretime/overview`: on a relay chain each para with a core working for it (and that core's descriptor), and the cores' schedules. */
  async overview(at: AtBlock): Promise<AnswerAt> {
    const { block, broker } = await this.chainAt(at);
    if (broker) return this.broker.overview(block);
    const newest = this.runtimes.newest?.registry;
    const guessed = newest ? safely(() => layoutOf(newest)) : undefined;
    const bound = (what: string) => ({
      maxKeys: MAX_CORETIME_ENTRIES,
      tooMany: `More than ${MAX_CORETIME_ENTRIES} entries in ${what}: fastcar does not list them in one answer.`,
    });
    const listing = (layout: Layout) =>
      Promise.all([
        listKeys(this.node, hexOf(layout.paras.prefix), block.hash, bound('Paras.ParaLifecycles')),
        layout.schedules ? listKeys(this.node, hexOf(layout.schedules.prefix), block.hash, bound('core schedules')) : [],
        layout.descriptors.hashers.length === 0 ? readKeys(this.node, [keyOf(layout.descriptors, [])], block.hash) : [],
      ]);
    const [read, early] = await wave([
      readResolvedAt(this.node, this.cache, block),
      guessed ? listing(guessed).catch((error: unknown) => error as Error) : undefined,
    ] as const);
    const { registry } = await this.runtimes.get(read.version, read.hash);
    const layout = layoutOf(registry);
    const sameLayout =
      guessed !== undefined && ['paras', 'schedules', 'descriptors'].every((name) => sameItem(guessed[name as keyof Layout], layout[name as keyof Layout]));
    const listed = sameLayout && early !== undefined ? early : await listing(layout);
    if (listed instanceof Error) throw listed;
    const [paraKeys, scheduleKeys, plainDescriptors] = listed;
    // Descriptors kept per core (the older pallet) are a map: listed, then read with the rest.
    const descriptorKeys =
      layout.descriptors.hashers.length > 0 ? await listKeys(this.node, hexOf(layout.descriptors.prefix), read.hash, bound('core descriptors')) : [];
    const values = await readKeys(this.node, [...paraKeys, ...scheduleKeys, ...descriptorKeys], read.hash);
    const paraValues = values.slice(0, paraKeys.length);
    const scheduleValues = values.slice(paraKeys.length, paraKeys.length + scheduleKeys.length);
    const descriptors = descriptorsOf(
      registry,
      layout.descriptors,
      plainDescriptors[0] ?? null,
      descriptorKeys.length > 0 ? values.slice(paraKeys.length + scheduleKeys.length) : [],
    );
    const cores = paraKeys.flatMap((key, i) => {
      const paraIdBytes = keyPartOf(layout.paras, key);
      if (!paraIdBytes) return [];
      const paraId = registry.createType(layout.paras.keyTypes[0] ?? 'u32', paraIdBytes).toString();
      const core = descriptors.find(({ tasks }) => tasks.includes(paraId));
      if (!core) return [];
      const lifecycle = readValue(registry, layout.paras, paraValues[i] ?? null);
      return [{ paraId, type: lifecycle ? lifecycle.toString() : null, info: core.info }];
    });
    const coreSchedules = scheduleKeys.map((key, i) => [key, layout.schedules ? readValue(registry, layout.schedules, scheduleValues[i] ?? null) : null]);
    const body = { at: atJson(read), cores, coreSchedules };
    return { json: JSON.stringify(toSidecarJson(body)), hash: read.hash, final: read.final };
  }

  /** The Broker pallet's routes (leases, regions, renewals, reservations); on a relay chain, sidecar's words as a 400. */
  async brokerRoute(at: AtBlock, route: 'leases' | 'regions' | 'renewals' | 'reservations'): Promise<AnswerAt> {
    const { block, broker } = await this.chainAt(at);
    if (broker) return this.broker[route](block);
    const read = await readResolvedAt(this.node, this.cache, block);
    const { registry } = await this.runtimes.get(read.version, read.hash);
    if (registry.metadata.pallets.some((pallet) => pallet.name.eq('OnDemandAssignmentProvider'))) {
      throw badRequest('This endpoint is only available on coretime chains.');
    }
    throw badRequest('The runtime does not include the broker module at this block');
  }
}

interface Layout {
  paras: StorageMap;
  descriptors: StorageMap;
  schedules: StorageMap | null;
}

function layoutOf(registry: TypeRegistry): Layout {
  const pallet = assignerOf(registry);
  const paras = storageItemOf(registry, 'Paras', 'ParaLifecycles');
  const descriptors = storageItemOf(registry, pallet, 'CoreDescriptors');
  if (!paras) throw badRequest('The runtime does not include the paras module at this block');
  if (!descriptors) throw badRequest('The runtime does not include the coretimeAssignmentProvider module at this block');
  return { paras, descriptors, schedules: storageItemOf(registry, pallet, 'CoreSchedules') };
}

function sameItem(a: StorageMap | null, b: StorageMap | null): boolean {
  if (!a || !b) return a === b;
  return hexOf(a.prefix) === hexOf(b.prefix) && a.hashers.join() === b.hashers.join() && a.valueType === b.valueType;
}

function safely<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    // The block's own runtime decides whether the request is wrong.
    return undefined;
  }
}

/** Every core's descriptor: one map value per core (the older pallet), or one value holding them all. */
function descriptorsOf(registry: TypeRegistry, map: StorageMap, plain: Hex | null, perCore: (Hex | null)[]): { tasks: string[]; info: JsonValue }[] {
  if (map.hashers.length > 0) return perCore.flatMap((value) => (value ? [descriptorJson(readValue(registry, map, value) as Struct)] : []));
  const all = readValue(registry, map, plain) as (Codec & Map<Codec, Struct>) | null;
  return all ? [...all.values()].map(descriptorJson) : [];
}
