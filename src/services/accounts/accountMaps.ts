// Storage maps keyed by an account (Vesting.Vesting, Proxy.Proxies) as a runtime
// declares them: the keys are built before the runtime is known (so they go out in the
// same wave as its version), by the hashers FRAME has always used for these maps; the
// runtime's metadata then says whether it keeps the map, with those hashers, and the
// type its values are read with.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { u8aConcat, u8aToHex } from '@polkadot/util';

import { badRequest, NotAtThisBlockError } from '../../errors';
import type { Hex } from '../../rpc/nodeClient';
import { itemPrefix, itemPrefixBytes, STORAGE_HASHERS } from '../shared/storage/storageLayout';

export interface AccountMap {
  pallet: string;
  item: string;
  hasher: 'Blake2_128Concat' | 'Twox64Concat';
}

export const VESTING_MAP: AccountMap = { pallet: 'Vesting', item: 'Vesting', hasher: 'Blake2_128Concat' };
export const PROXIES_MAP: AccountMap = { pallet: 'Proxy', item: 'Proxies', hasher: 'Twox64Concat' };

/** A plain storage value's key. */
export const valueKey = (pallet: string, item: string): Hex => itemPrefix(pallet, item);

export function accountMapKey(map: AccountMap, account: Uint8Array): Hex {
  return u8aToHex(u8aConcat(itemPrefixBytes(map.pallet, map.item), STORAGE_HASHERS[map.hasher](account)));
}

/** How a runtime keeps a map: absent from the runtime (undefined), or how its values are read. */
export interface MapLayout {
  valueType: string;
  /** What nothing stored reads as; null for an optional map, where nothing stored is no value. */
  fallback: Uint8Array | null;
  accountIdBytes: number;
}

const layouts = new WeakMap<TypeRegistry, Map<string, MapLayout | undefined>>();

export function mapLayoutOf(registry: TypeRegistry, map: AccountMap): MapLayout | undefined {
  let known = layouts.get(registry);
  if (!known) {
    known = new Map();
    layouts.set(registry, known);
  }
  const name = `${map.pallet}.${map.item}`;
  if (!known.has(name)) known.set(name, readMapLayout(registry, map));
  return known.get(name);
}

function readMapLayout(registry: TypeRegistry, map: AccountMap): MapLayout | undefined {
  const pallet = registry.metadata.pallets.find((one) => one.name.eq(map.pallet));
  const item = pallet?.storage.unwrapOr(undefined)?.items.find((one) => one.name.eq(map.item));
  if (!item) return undefined;
  const hashers = item.type.isMap ? item.type.asMap.hashers.map((hasher) => hasher.type) : [];
  if (hashers.length !== 1 || hashers[0] !== map.hasher) {
    throw new NotAtThisBlockError(`The runtime at this block keeps ${map.pallet}.${map.item} in a form fastcar does not read.`);
  }
  const { key, value } = item.type.asMap;
  return {
    valueType: registry.createLookupType(value),
    fallback: item.modifier.isOptional ? null : item.fallback.toU8a(true),
    accountIdBytes: registry.createType(registry.createLookupType(key)).encodedLength,
  };
}

/** The stored value read with the map's type; undefined when an optional map holds nothing for the account. */
export function readMapValue(registry: TypeRegistry, layout: MapLayout, value: Hex | null): Codec | undefined {
  const bytes = value ?? layout.fallback;
  return bytes === null ? undefined : registry.createType(layout.valueType, bytes);
}

/** An address whose bytes cannot be an account of this chain is the client's mistake, said as balance-info says it. */
export function checkAccountBytes(account: Uint8Array, ethereum: boolean, accountIdBytes: number): void {
  if (account.length === accountIdBytes) return;
  if (ethereum) throw badRequest(`Ethereum (20-byte) addresses are not accounts on this chain: its accounts are ${accountIdBytes} bytes long.`);
  throw badRequest(`This address encodes a ${account.length}-byte value, not an account of this chain: its accounts are ${accountIdBytes} bytes long.`);
}

/** Balances.Locks: where the vesting lock (what is still held back) is kept. */
export const LOCKS_MAP: AccountMap = { pallet: 'Balances', item: 'Locks', hasher: 'Blake2_128Concat' };
