// Where a runtime keeps one storage item, read from its own metadata: the key's prefix,
// hashers and part types, the value's type and what an absent value reads as; and the
// keys built from them. Kept per runtime (a runtime's metadata never changes).
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import { blake2AsU8a, xxhashAsU8a } from '@polkadot/util-crypto';

import type { Hex } from '../../../rpc/nodeClient';

export interface StorageMap {
  /** twox128(pallet) ++ twox128(item): the whole key of a plain value. */
  prefix: Uint8Array;
  /** One per key part; none for a plain value. */
  hashers: string[];
  /** The lookup type of each part of the key, in order. */
  keyTypes: string[];
  valueType: string;
  /** What an absent value reads as (null: the item is optional, nothing is there). */
  fallback: Uint8Array | null;
}

/** twox128(pallet) ++ twox128(item): fixed by the names alone, so known before the block's runtime is. */
export function itemPrefixBytes(palletName: string, itemName: string): Uint8Array {
  return u8aConcat(xxhashAsU8a(palletName, 128), xxhashAsU8a(itemName, 128));
}

/** itemPrefixBytes as hex: a plain value's whole key, or where a map's keys start. */
export function itemPrefix(palletName: string, itemName: string): Hex {
  return u8aToHex(itemPrefixBytes(palletName, itemName));
}

/** Each storage hasher by its metadata name: how it turns a key part's SCALE bytes into the key's bytes. */
export const STORAGE_HASHERS: Readonly<Record<string, (data: Uint8Array) => Uint8Array>> = {
  Blake2_128: (data) => blake2AsU8a(data, 128),
  Blake2_256: (data) => blake2AsU8a(data, 256),
  Blake2_128Concat: (data) => u8aConcat(blake2AsU8a(data, 128), data),
  Twox128: (data) => xxhashAsU8a(data, 128),
  Twox256: (data) => xxhashAsU8a(data, 256),
  Twox64Concat: (data) => u8aConcat(xxhashAsU8a(data, 64), data),
  Identity: (data) => data,
};

const items = new WeakMap<TypeRegistry, Map<string, StorageMap | null>>();

/** The item `pallet.item` of the runtime, or null when it has no such item. */
export function storageItemOf(registry: TypeRegistry, palletName: string, itemName: string): StorageMap | null {
  let known = items.get(registry);
  if (!known) {
    known = new Map();
    items.set(registry, known);
  }
  const name = `${palletName}.${itemName}`;
  let item = known.get(name);
  if (item === undefined) {
    item = readItem(registry, palletName, itemName);
    known.set(name, item);
  }
  return item;
}

function readItem(registry: TypeRegistry, palletName: string, itemName: string): StorageMap | null {
  const pallet = registry.metadata.pallets.find((one) => one.name.eq(palletName));
  const item = pallet?.storage.unwrapOr(undefined)?.items.find((one) => one.name.eq(itemName));
  if (!item) return null;
  const prefix = itemPrefixBytes(palletName, itemName);
  const fallback = item.modifier.isOptional ? null : item.fallback.toU8a(true);
  if (item.type.isPlain) return { prefix, hashers: [], keyTypes: [], valueType: registry.createLookupType(item.type.asPlain), fallback };
  const { hashers, key, value } = item.type.asMap;
  const hasherNames = hashers.map((hasher) => hasher.type);
  const keyType = registry.lookup.getSiType(key);
  // A map of several keys is keyed by a tuple of them; a map of one by that one type.
  const keyTypes =
    hasherNames.length > 1 && keyType.def.isTuple ? keyType.def.asTuple.map((part) => registry.createLookupType(part)) : [registry.createLookupType(key)];
  return { prefix, hashers: hasherNames, keyTypes, valueType: registry.createLookupType(value), fallback };
}

/** One part of a key, hashed as the map says (Twox256, the one hasher left, for any other name). */
function hashed(hasher: string, bytes: Uint8Array): Uint8Array {
  return (STORAGE_HASHERS[hasher] ?? STORAGE_HASHERS.Twox256)(bytes);
}

/** The key of the entry whose key parts are these SCALE encodings (none: a plain value's key). */
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

/**
 * A stored value read with the item's type; null when the item is optional and nothing is there.
 * Given as bytes: polkadot.js reads a hex string given for a number as that number written out.
 */
export function readValue(registry: TypeRegistry, map: StorageMap, value: Hex | null): Codec | null {
  if (value === null && map.fallback === null) return null;
  return registry.createType(map.valueType, value === null ? (map.fallback ?? new Uint8Array()) : hexToU8a(value));
}
