// A storage item's key, built from the runtime's metadata: twox128 of the pallet's and
// the item's names, then each key the client gave, encoded as its type and hashed by
// the item's hasher for that place (a map with several hashers takes one key each).
// Keys are read from text as polkadot.js reads a query's arguments (what sidecar hands
// it), so the same text names the same entry; a key that is not of its type, or the
// wrong count of keys, is the client's mistake.
import type { TypeRegistry } from '@polkadot/types';
import type { SiLookupTypeId, StorageEntryMetadataLatest, StorageHasher } from '@polkadot/types/interfaces';
import { u8aConcat, u8aToHex } from '@polkadot/util';

import { badRequest } from '../../errors';
import type { Hex } from '../../rpc/nodeClient';
import { itemPrefixBytes, STORAGE_HASHERS } from '../shared/storage/storageLayout';

/** The type of each key the item takes, with its hasher: none for a plain value. */
function keyTypes(registry: TypeRegistry, entry: StorageEntryMetadataLatest): { type: string; shown: string; hasher: StorageHasher }[] {
  if (!entry.type.isMap) return [];
  const { hashers, key } = entry.type.asMap;
  const typeOf = (id: SiLookupTypeId, i: number) => ({
    type: registry.createLookupType(id),
    shown: registry.lookup.getTypeDef(id).type,
    hasher: hashers[i] as StorageHasher,
  });
  if (hashers.length === 1) return [typeOf(key, 0)];
  const tuple = registry.lookup.getSiType(key).def;
  const parts = tuple.isTuple ? tuple.asTuple : [];
  if (parts.length !== hashers.length) throw badRequest(`The storage item ${entry.name.toString()} declares keys fastcar cannot read.`);
  return parts.map((part, i) => typeOf(part, i));
}

/** `prefix`: the pallet's storage prefix (its declared name); `palletName`: as messages name it. */
export function storageKey(registry: TypeRegistry, prefix: string, palletName: string, entry: StorageEntryMetadataLatest, keys: readonly string[]): Hex {
  const wanted = keyTypes(registry, entry);
  const name = entry.name.toString();
  if (keys.length !== wanted.length) {
    const shape = wanted.length === 0 ? 'a plain value, taking no keys' : `a map, taking ${wanted.length} key${wanted.length === 1 ? '' : 's'}`;
    throw badRequest(`${palletName}.${name} is ${shape} (keys[]), ${keys.length} given.`);
  }
  const parts = wanted.map(({ type, shown, hasher }, i) => {
    const hash = STORAGE_HASHERS[hasher.type];
    if (!hash) throw badRequest(`${palletName}.${name} is keyed by a hasher fastcar does not know (${hasher.type}).`);
    let encoded: Uint8Array;
    try {
      encoded = registry.createType(type, keys[i]).toU8a();
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0]?.slice(0, 200) : '';
      throw badRequest(`Key ${i + 1} of ${palletName}.${name} (${JSON.stringify(keys[i]).slice(0, 100)}) is not a ${shown}: ${reason}`);
    }
    return hash(encoded);
  });
  return u8aToHex(u8aConcat(itemPrefixBytes(prefix, name), ...parts));
}
