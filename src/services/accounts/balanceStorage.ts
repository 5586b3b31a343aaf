// Where a runtime keeps an account's balance and locks (System.Account, Balances.Locks),
// the types they are read with and the existential deposit, taken from the runtime's own
// metadata once per runtime; and the storage keys of one account.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { u8aConcat, u8aToHex } from '@polkadot/util';

import { NotAtThisBlockError } from '../../errors';
import type { Hex } from '../../rpc/nodeClient';
import { itemPrefixBytes, STORAGE_HASHERS } from '../shared/storage/storageLayout';

interface StoredItem {
  /** The lookup type its value is read with, and what an absent value reads as. */
  valueType: string;
  fallback: Uint8Array;
}

export interface BalanceLayout {
  account: StoredItem;
  locks: StoredItem;
  /** The bytes of an account id on this chain (32, or 20 on Ethereum-style chains). */
  accountIdBytes: number;
  existentialDeposit: bigint;
}

const layouts = new WeakMap<TypeRegistry, BalanceLayout>();

const SYSTEM_ACCOUNT_PREFIX = itemPrefixBytes('System', 'Account');
const BALANCES_LOCKS_PREFIX = itemPrefixBytes('Balances', 'Locks');

/** Both maps are keyed by the account with blake2_128_concat: its hash, then the account itself. */
function keyOf(prefix: Uint8Array, account: Uint8Array): Hex {
  return u8aToHex(u8aConcat(prefix, STORAGE_HASHERS.Blake2_128Concat(account)));
}

export function balanceKeys(account: Uint8Array): { account: Hex; locks: Hex } {
  return { account: keyOf(SYSTEM_ACCOUNT_PREFIX, account), locks: keyOf(BALANCES_LOCKS_PREFIX, account) };
}

export function balanceLayoutOf(registry: TypeRegistry): BalanceLayout {
  let layout = layouts.get(registry);
  if (!layout) {
    layout = readLayout(registry);
    layouts.set(registry, layout);
  }
  return layout;
}

function readLayout(registry: TypeRegistry): BalanceLayout {
  const pallets = registry.metadata.pallets;
  const system = pallets.find((pallet) => pallet.name.eq('System'));
  const balances = pallets.find((pallet) => pallet.name.eq('Balances'));
  const accountItem = system?.storage.unwrapOr(undefined)?.items.find((item) => item.name.eq('Account'));
  const locksItem = balances?.storage.unwrapOr(undefined)?.items.find((item) => item.name.eq('Locks'));
  const deposit = balances?.constants.find((constant) => constant.name.eq('ExistentialDeposit'));
  if (!accountItem?.type.isMap || !locksItem?.type.isMap || !deposit) {
    throw new NotAtThisBlockError('The runtime at this block has no Balances pallet beside System: it keeps no balances to show.');
  }
  const itemOf = (item: typeof accountItem): StoredItem => ({
    valueType: registry.createLookupType(item.type.asMap.value),
    fallback: item.fallback.toU8a(true),
  });
  const accountIdType = registry.createLookupType(accountItem.type.asMap.key);
  const depositValue = registry.createType(registry.createLookupType(deposit.type), deposit.value.toU8a(true));
  return {
    account: itemOf(accountItem),
    locks: itemOf(locksItem),
    accountIdBytes: registry.createType(accountIdType).encodedLength,
    existentialDeposit: BigInt(depositValue.toString()),
  };
}

/** A stored value read with its item's type; nothing stored reads as the item's default. */
export function readStored(registry: TypeRegistry, item: StoredItem, value: Hex | null): Codec {
  return registry.createType(item.valueType, value ?? item.fallback);
}
