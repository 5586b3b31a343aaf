// The chain's assets themselves (not an account's), as sidecar's /pallets/assets,
// /pallets/pool-assets, /pallets/foreign-assets and /pallets/asset-conversion answer
// them, read at the block asked for (sidecar reads the values at its head whatever
// `at` says: docs/differences.md). One asset: its details and metadata in one
// state_queryStorageAt, in the wave of the block's version. Maps listed whole (foreign
// assets, pools): the keys page by page under a bound, then every value in one wave.
import type { TypeRegistry } from '@polkadot/types';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { assetLayoutOf, type AssetLayout } from '../accounts/assetStorage';
import { atJson, readResolvedAt, type AtBlock, type ReadAt, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import { readKeysAt } from '../shared/storage/keysAtBlock';
import type { RuntimeRegistry } from '../runtimes';
import { listKeys, readKeys } from '../shared/storage/storageBatch';
import { itemPrefix, keyOf, keyPartOf, readValue, storageItemOf, type StorageMap } from '../shared/storage/storageLayout';

/** The most entries a listed map may hold: beyond it the answer is refused, not read. */
export const MAX_LISTED_ENTRIES = 10_000;

/** What each pallet's one-asset answer names its two parts (sidecar's words). */
const INFO_FIELDS = {
  Assets: { info: 'assetInfo', metadata: 'assetMetaData', missing: 'assets pallet' },
  PoolAssets: { info: 'poolAssetInfo', metadata: 'poolAssetMetaData', missing: 'pool assets pallet' },
} as const;

export class PalletAssets {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /** One asset's details (null when there is none) and metadata (the pallet's default when none was set). */
  async assetInfo(at: AtBlock, pallet: 'Assets' | 'PoolAssets', assetId: number): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const layoutIn = (registry: TypeRegistry) => {
      const layout = assetLayoutOf(registry, pallet);
      if (!layout?.metadata) throw badRequest(`The runtime does not include the ${INFO_FIELDS[pallet].missing} at this block.`);
      return layout as AssetLayout & { metadata: StorageMap };
    };
    const keysFor = ({ registry }: { registry: TypeRegistry }) => {
      const layout = layoutIn(registry);
      const id = encodeKeyPart(registry, layout.asset, assetId);
      return [keyOf(layout.asset, [id]), keyOf(layout.metadata, [id])];
    };
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, keysFor);
    const layout = layoutIn(runtime.registry);
    const fields = INFO_FIELDS[pallet];
    const body = {
      at: atJson(read),
      [fields.info]: readValue(runtime.registry, layout.asset, values[0] ?? null),
      [fields.metadata]: readValue(runtime.registry, layout.metadata, values[1] ?? null),
    };
    return answer(read, body);
  }

  /**
   * Every foreign asset: its location as polkadot.js writes it for people (sidecar's
   * `toHuman()`: enum names as the types spell them, numbers with thousands separators),
   * its details and its metadata.
   */
  async foreignAssets(at: AtBlock): Promise<AnswerAt> {
    const { read, registry, keys, map } = await this.listed(at, 'ForeignAssets', 'Asset', 'foreign assets');
    const metadata = storageItemOf(registry, 'ForeignAssets', 'Metadata');
    const locations = keys.map((key) => keyPartOf(map, key));
    const metadataKeys = metadata ? locations.map((location) => (location ? keyOf(metadata, [location]) : undefined)) : [];
    const [details, metas] = await wave([
      readKeys(this.node, keys, read.hash),
      readKeys(
        this.node,
        metadataKeys.filter((key): key is Hex => key !== undefined),
        read.hash,
      ),
    ] as const);
    let nextMeta = 0;
    const items = keys.map((_, i) => {
      const location = locations[i];
      const locationType = map.keyTypes[0];
      const human = location && locationType ? (registry.createType(locationType, location).toHuman() as JsonValue) : '';
      const stored = metadata && metadataKeys[i] ? readValue(registry, metadata, metas[nextMeta++] ?? null) : null;
      return {
        multiLocation: human,
        foreignAssetInfo: readValue(registry, map, details[i] ?? null) ?? {},
        foreignAssetMetadata: stored ?? {},
      };
    });
    return answer(read, { at: atJson(read), items });
  }

  /** Every pool: the pair of assets it trades (its key) and its liquidity token. */
  async liquidityPools(at: AtBlock): Promise<AnswerAt> {
    const { read, registry, keys, map } = await this.listed(at, 'AssetConversion', 'Pools', 'liquidity pools');
    const values = await readKeys(this.node, keys, read.hash);
    const pairType = map.keyTypes[0];
    const pools = keys.map((key, i) => {
      const pair = keyPartOf(map, key);
      return {
        reserves: pair && pairType ? registry.createType(pairType, pair) : null,
        lpToken: readValue(registry, map, values[i] ?? null),
      };
    });
    return answer(read, { at: atJson(read), pools });
  }

  /** The id the next pool's liquidity token will get ("0" when none was set). */
  async nextPoolAssetId(at: AtBlock): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const itemIn = (registry: TypeRegistry) => {
      const item = storageItemOf(registry, 'AssetConversion', 'NextPoolAssetId');
      if (!item) throw badRequest('The runtime does not include the asset conversion pallet at this block.');
      return item;
    };
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, ({ registry }) => [keyOf(itemIn(registry), [])]);
    const id = readValue(runtime.registry, itemIn(runtime.registry), values[0] ?? null);
    return answer(read, { at: atJson(read), poolId: id ?? '0' });
  }

  /** A map's keys at `at`, listed beside the block's version (the prefix is fixed by the names). */
  private async listed(at: AtBlock, pallet: string, item: string, what: string) {
    const block = await this.ids.at(at);
    const tooMany = `This chain has more than ${MAX_LISTED_ENTRIES} ${what}: fastcar does not list them in one answer.`;
    const [read, keys] = await wave([
      readResolvedAt(this.node, this.cache, block),
      listKeys(this.node, itemPrefix(pallet, item), block.hash, { maxKeys: MAX_LISTED_ENTRIES, tooMany }).catch((error: unknown) => error as Error),
    ] as const);
    if (keys instanceof Error) throw keys;
    const { registry } = await this.runtimes.get(read.version, read.hash);
    const map = storageItemOf(registry, pallet, item);
    if (!map || map.hashers.length === 0) throw badRequest(`The runtime does not include ${what} (pallet ${pallet}) at this block.`);
    return { read, registry, keys, map };
  }
}

/** An id in its key's encoding; one the chain's type cannot hold is the client's mistake. */
function encodeKeyPart(registry: TypeRegistry, map: StorageMap, id: number): Uint8Array {
  try {
    return registry.createType(map.keyTypes[0] ?? 'u32', id).toU8a();
  } catch (error) {
    throw badRequest(`Asset id ${id} is not an asset id of this chain: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function answer(read: ReadAt, body: Record<string, unknown>): AnswerAt {
  return { json: JSON.stringify(toSidecarJson(body)), hash: read.hash, final: read.final };
}
