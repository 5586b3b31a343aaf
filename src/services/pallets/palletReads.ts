// `/pallets/{palletId}/...`: a pallet's items (storage, constants, errors, events,
// dispatchables) and one storage item's value, as sidecar answers them. Everything
// but a storage value comes from the runtime's metadata, which fastcar already holds
// per runtime: such an answer costs the block's version (kept per hash) and, for a
// hash, its header. A storage value costs one state_getStorage more, sent in the same
// wave as those: its key is built from the runtime the block's version is known (or
// guessed) to be, and built again, a wave later, only when the guess was wrong.
import type { TypeRegistry } from '@polkadot/types';
import type { StorageEntryMetadataLatest } from '@polkadot/types/interfaces';
import { hexToU8a } from '@polkadot/util';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import { ApiError, NotAtThisBlockError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { knownVersion, readResolvedAt, type AtBlock, type ReadAt, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { Runtime, RuntimeRegistry } from '../runtimes';
import { storageAt } from '../shared/storage/wellKnownKeys';
import { palletItems } from './palletItems';
import { findItem, findPallet, itemIdOf, type FoundPallet, type PalletField } from './palletLookup';
import { storageKey } from './storageKey';

/** What an item answer calls its item, by kind. */
const ITEM_FIELD: Record<PalletField, string> = {
  storage: 'storageItem',
  constants: 'constantsItem',
  errors: 'errorItem',
  events: 'eventItem',
  calls: 'dispatchableItem',
};

export interface ItemQuery {
  palletId: string;
  itemId: string;
  metadata: boolean;
}

export interface StorageQuery extends ItemQuery {
  keys: string[];
}

/** A storage read planned at one runtime: where the value is, and how it is read. */
interface StoragePlan {
  pallet: FoundPallet;
  entry: StorageEntryMetadataLatest;
  entryJson: JsonValue;
  key: Hex;
}

/** `{"at":...,"pallet":...,"palletIndex":...`: how every answer of the family starts (left open). */
function head(read: ReadAt, pallet: FoundPallet): string {
  const at = JSON.stringify({ hash: read.hash, height: String(read.number) });
  return `{"at":${at},"pallet":${JSON.stringify(pallet.name)},"palletIndex":${JSON.stringify(String(pallet.index))}`;
}

const sameRuntime = (runtime: Runtime, read: ReadAt) => runtime.specName === read.version.specName && runtime.specVersion === read.version.specVersion;

function planStorage(registry: TypeRegistry, query: StorageQuery): StoragePlan {
  const pallet = findPallet(registry, query.palletId, 'storage');
  const items = palletItems(registry, pallet, 'storage');
  const place = findItem(items.names, query.itemId, 'storage');
  const storage = pallet.meta.storage.unwrap();
  const entry = storage.items[place] as StorageEntryMetadataLatest;
  const key = storageKey(registry, storage.prefix.toString(), pallet.name, entry, query.keys);
  return { pallet, entry, entryJson: items.metadata[place] ?? null, key };
}

/** The stored value as sidecar shows it: the item's fallback when nothing is stored, null for an optional item without one. */
function valueJson(registry: TypeRegistry, entry: StorageEntryMetadataLatest, stored: Hex | null): JsonValue {
  // Bytes, not hex text: polkadot.js reads a number given as hex text as big-endian.
  const bytes = stored !== null ? hexToU8a(stored) : entry.modifier.isOptional ? null : entry.fallback.toU8a(true);
  if (bytes === null) return null;
  const type = registry.createLookupType(entry.type.isMap ? entry.type.asMap.value : entry.type.asPlain);
  return toSidecarJson(registry.createType(type, bytes));
}

export class PalletReads {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /** The block read at and the runtime that reads it. */
  private async runtimeAt(at: AtBlock): Promise<{ read: ReadAt; registry: TypeRegistry }> {
    const read = await readResolvedAt(this.node, this.cache, await this.ids.at(at));
    const runtime = await this.runtimes.get(read.version, read.hash);
    return { read, registry: runtime.registry };
  }

  /** A pallet's items of one kind: their names (`onlyIds`) or their metadata. */
  async items(at: AtBlock, palletId: string, field: PalletField, onlyIds: boolean): Promise<AnswerAt> {
    const { read, registry } = await this.runtimeAt(at);
    const pallet = findPallet(registry, palletId, field);
    const items = palletItems(registry, pallet, field);
    const json = `${head(read, pallet)},"items":${onlyIds ? items.namesJson : items.metadataJson}}`;
    return { json, hash: read.hash, final: read.final };
  }

  /** One item (a constant, error, event or dispatchable) by name, with its metadata when asked. */
  async item(at: AtBlock, field: Exclude<PalletField, 'storage'>, query: ItemQuery): Promise<AnswerAt> {
    const { read, registry } = await this.runtimeAt(at);
    const pallet = findPallet(registry, query.palletId, field);
    const items = palletItems(registry, pallet, field);
    const place = findItem(items.names, query.itemId, field);
    const metadata = query.metadata ? `,"metadata":${JSON.stringify(items.metadata[place])}` : '';
    const json = `${head(read, pallet)},${JSON.stringify(ITEM_FIELD[field])}:${JSON.stringify(itemIdOf(query.itemId))}${metadata}}`;
    return { json, hash: read.hash, final: read.final };
  }

  /** A storage item's value at the block, read by the keys given. */
  async storageItem(at: AtBlock, query: StorageQuery): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const kept = await knownVersion(this.cache, block.hash);
    // The runtime the block is known to have, or the newest loaded as a guess checked below.
    const guess = kept ? await this.runtimes.get(kept, block.hash) : this.runtimes.newest;
    let plan: StoragePlan | undefined;
    let refused: ApiError | undefined;
    try {
      plan = guess ? planStorage(guess.registry, query) : undefined;
    } catch (error) {
      if (!(error instanceof ApiError) || kept) throw error;
      refused = error;
    }
    const [read, guessedValue] = await wave([
      readResolvedAt(this.node, this.cache, block),
      plan ? storageAt(this.node, plan.key, block.hash) : undefined,
    ] as const);
    let registry = guess?.registry;
    let value = guessedValue;
    if (!guess || !sameRuntime(guess, read)) {
      registry = (await this.runtimes.get(read.version, read.hash)).registry;
      plan = planStorage(registry, query);
      value = await storageAt(this.node, plan.key, read.hash);
    } else if (refused) {
      throw refused;
    }
    if (!plan || !registry) throw new NotAtThisBlockError('No runtime could read this block.');
    if (value === undefined) throw new NotAtThisBlockError(`The node no longer has the state of block ${read.hash} (pruned).`);
    const shown = `,"storageItem":${JSON.stringify(itemIdOf(query.itemId))},"keys":${JSON.stringify(query.keys)}`;
    const metadata = query.metadata ? `,"metadata":${JSON.stringify(plan.entryJson)}` : '';
    const json = `${head(read, plan.pallet)}${shown},"value":${JSON.stringify(valueJson(registry, plan.entry, value))}${metadata}}`;
    return { json, hash: read.hash, final: read.final };
  }
}
