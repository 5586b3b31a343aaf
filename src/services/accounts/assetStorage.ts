// Where a runtime keeps assets of one kind (the Assets, PoolAssets and ForeignAssets
// pallets share one code, so one layout reads all three): the maps of assets, of
// accounts' balances and of approvals, their hashers and types, read from the
// runtime's own metadata once per runtime; and the storage keys built from them.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { u8aConcat, u8aToHex } from '@polkadot/util';
import { blake2AsU8a, xxhashAsU8a } from '@polkadot/util-crypto';

import type { Hex } from '../../rpc/nodeClient';

export type AssetPallet = 'Assets' | 'PoolAssets' | 'ForeignAssets';

export interface StorageMap {
  /** twox128(pallet) ++ twox128(item). */
  prefix: Uint8Array;
  hashers: string[];
  /** The lookup type of each part of the key, in order. */
  keyTypes: string[];
  valueType: string;
  /** What an absent value reads as (null: the map is optional, nothing is there). */
  fallback: Uint8Array | null;
}

export interface AssetLayout {
  /** Every asset's details, keyed by its id: listed for "all assets". */
  asset: StorageMap;
  /** Balances: (asset id, account). */
  account: StorageMap;
  /** Approvals: (asset id, owner, delegate); absent on runtimes without it. */
  approvals: StorageMap | undefined;
}

const layouts = new WeakMap<TypeRegistry, Map<AssetPallet, AssetLayout | null>>();

/** The pallet's layout, or null when the runtime has no such pallet (sidecar: a 400 naming it). */
export function assetLayoutOf(registry: TypeRegistry, pallet: AssetPallet): AssetLayout | null {
  let known = layouts.get(registry);
  if (!known) {
    known = new Map();
    layouts.set(registry, known);
  }
  let layout = known.get(pallet);
  if (layout === undefined) {
    layout = readLayout(registry, pallet);
    known.set(pallet, layout);
  }
  return layout;
}

function readLayout(registry: TypeRegistry, name: AssetPallet): AssetLayout | null {
  const pallet = registry.metadata.pallets.find((one) => one.name.eq(name));
  const items = pallet?.storage.unwrapOr(undefined)?.items;
  if (!items) return null;
  const mapOf = (itemName: string): StorageMap | undefined => {
    const item = items.find((one) => one.name.eq(itemName));
    if (!item?.type.isMap) return undefined;
    const { hashers, key, value } = item.type.asMap;
    const hasherNames = hashers.map((hasher) => hasher.type);
    const keyType = registry.lookup.getSiType(key);
    // A map of several keys is keyed by a tuple of them; a map of one by that one type.
    const keyTypes =
      hasherNames.length > 1 && keyType.def.isTuple ? keyType.def.asTuple.map((part) => registry.createLookupType(part)) : [registry.createLookupType(key)];
    return {
      prefix: u8aConcat(xxhashAsU8a(name, 128), xxhashAsU8a(itemName, 128)),
      hashers: hasherNames,
      keyTypes,
      valueType: registry.createLookupType(value),
      fallback: item.modifier.isOptional ? null : item.fallback.toU8a(true),
    };
  };
  const [asset, account] = [mapOf('Asset'), mapOf('Account')];
  if (!asset || !account) return null;
  return { asset, account, approvals: mapOf('Approvals') };
}

/** One part of a key, hashed as the map says. */
function hashed(hasher: string, bytes: Uint8Array): Uint8Array {
  switch (hasher) {
    case 'Blake2_128Concat':
      return u8aConcat(blake2AsU8a(bytes, 128), bytes);
    case 'Twox64Concat':
      return u8aConcat(xxhashAsU8a(bytes, 64), bytes);
    case 'Identity':
      return bytes;
    case 'Blake2_128':
      return blake2AsU8a(bytes, 128);
    case 'Blake2_256':
      return blake2AsU8a(bytes, 256);
    case 'Twox128':
      return xxhashAsU8a(bytes, 128);
    default:
      return xxhashAsU8a(bytes, 256);
  }
}

/** The key of the entry whose key parts are these SCALE encodings. */
export function keyOf(map: StorageMap, parts: Uint8Array[]): Hex {
  return u8aToHex(u8aConcat(map.prefix, ...parts.map((part, i) => hashed(map.hashers[i] ?? 'Identity', part))));
}

/** How many bytes a hasher puts before the key part it keeps in clear (undefined: it keeps none). */
function clearOffset(hasher: string): number | undefined {
  if (hasher === 'Blake2_128Concat') return 16;
  if (hasher === 'Twox64Concat') return 8;
  if (hasher === 'Identity') return 0;
  return undefined;
}

/** The SCALE bytes of a one-part key's part, read back from a listed key (undefined: a hasher that hides it). */
export function keyPartOf(map: StorageMap, key: Hex): Uint8Array | undefined {
  const offset = clearOffset(map.hashers[0] ?? '');
  if (offset === undefined) return undefined;
  return Buffer.from(key.slice(2), 'hex').subarray(map.prefix.length + offset);
}

/** A stored value read with the map's type; null when the map is optional and nothing is there. */
export function readValue(registry: TypeRegistry, map: StorageMap, value: Hex | null): Codec | null {
  if (value === null && map.fallback === null) return null;
  return registry.createType(map.valueType, value ?? map.fallback ?? new Uint8Array());
}
