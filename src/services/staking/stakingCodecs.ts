// Small readers over the staking pallet's decoded values (structs, options, vectors),
// and the keys of its era maps, built from the runtime's own metadata.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { u8aConcat, u8aToHex } from '@polkadot/util';
import { xxhashAsU8a } from '@polkadot/util-crypto';

import { badRequest } from '../../errors';
import type { Hex } from '../../rpc/nodeClient';
import { keyOf, readValue, storageItemOf, type StorageMap } from '../shared/storage/storageLayout';
import type { Optional, Struct } from '../../decode/codecValues';

export const NO_STAKING = 'Staking pallet not found for queried runtime';

/** A struct's field (undefined: no such field), looking through an Option that holds the struct. */
export function fieldOf(value: Codec | null | undefined, name: string): Codec | undefined {
  if (!value) return undefined;
  const inner = 'isSome' in value ? ((value as Optional).isSome ? (value as Optional).unwrap() : undefined) : value;
  return inner && typeof (inner as Struct).get === 'function' ? (inner as Struct).get(name) : undefined;
}

export const listOf = (value: Codec | null | undefined): Codec[] => (value ? [...(value as unknown as Iterable<Codec>)] : []);

/** The staking item, or the 400 every staking route gives when the runtime has no staking. */
export function stakingItem(registry: TypeRegistry, item: string): StorageMap {
  const map = storageItemOf(registry, 'Staking', item);
  if (!map) throw badRequest(NO_STAKING);
  return map;
}

/** The key of a staking map entry, each part encoded with the map's own key types. */
export function stakingKey(registry: TypeRegistry, map: StorageMap, parts: (number | Uint8Array)[]): Hex {
  return keyOf(
    map,
    parts.map((part, i) => registry.createType(map.keyTypes[i] ?? 'u32', part).toU8a()),
  );
}

/** The prefix under which a map keyed by era first keeps one era's entries. */
export function eraPrefix(registry: TypeRegistry, map: StorageMap, era: number): Hex {
  const bytes = registry.createType(map.keyTypes[0] ?? 'u32', era).toU8a();
  return u8aToHex(u8aConcat(map.prefix, xxhashAsU8a(bytes, 64), bytes));
}

export const decoded = (registry: TypeRegistry, map: StorageMap, value: Hex | null): Codec | null => readValue(registry, map, value);
