// One account's balance at a block, as sidecar's /accounts/{id}/balance-info answers it.
// Once `at` is resolved, everything goes to the node in one wave: the account's entry in
// a state_queryStorageAt (shared with other requests at that block), beside the runtime
// version (unless kept) and the header (only when `at` was a hash, for the height). Its
// locks are read only when the entry says something is frozen, a wave later: pallet-balances
// keeps `frozen` (miscFrozen/feeFrozen before 2023) at the largest lock, and never keeps a
// lock of nothing, so an account with nothing frozen has no locks to read. Most accounts
// hold no lock, and a node pays for every key it looks up (more so for keys it does not
// have), so most answers cost the node one key instead of two. A node that refuses
// state_queryStorageAt is asked for each entry on its own. The existential deposit and
// the types come from the runtime's metadata, decimals and token symbols from the chain
// properties the runtime registry was given: no call of their own.
import { Struct, type Vec } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import { badRequest, NotAtThisBlockError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import type { StorageQueries } from '../../rpc/storageQueries';
import { readResolvedAt, type AtBlock, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { RuntimeRegistry } from '../runtimes';
import { entriesApart, entriesTogether, entryOf, type StoredEntries } from '../shared/storage/storageBatch';
import { balanceKeys, balanceLayoutOf, readStored, type BalanceLayout } from './balanceStorage';
import { denominate } from './denomination';

export interface BalanceQuery {
  /** The account's bytes, and whether the client gave them as a 20-byte Ethereum address. */
  account: Uint8Array;
  ethereum: boolean;
  /** As the client wrote it (uppercased here); the chain's first token when absent. */
  token: string | undefined;
  denominated: boolean;
}

const UNREADABLE = 'The runtime at this block keeps balances in a form fastcar does not read.';

const U128_MAX = (1n << 128n) - 1n;
const NO_MISC_FROZEN = 'miscFrozen does not exist for this runtime';
const NO_FEE_FROZEN = 'feeFrozen does not exist for this runtime';
const NO_FROZEN = 'frozen does not exist for this runtime';
const NO_TRANSFERABLE = 'transferable formula not supported for this runtime';

export class AccountBalances {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
    /** Reads at one block in the same turn, of every request, in one call. */
    private readonly storage?: StorageQueries,
  ) {}

  async balanceInfo(at: AtBlock, query: BalanceQuery): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const keys = balanceKeys(query.account);
    const [read, together] = await wave([
      readResolvedAt(this.node, this.cache, block),
      entriesTogether(this.node, [keys.account], block.hash, this.storage),
    ] as const);
    const stored = together ?? (await entriesApart(this.node, [keys.account], block.hash));
    const runtime = await this.runtimes.get(read.version, read.hash);
    const { registry } = runtime;
    const layout = balanceLayoutOf(registry);
    checkAccountLength(query, layout);
    const info = readStored(registry, layout.account, entryOf(stored, keys.account));
    const data = info instanceof Struct ? info.get('data') : undefined;
    if (!(info instanceof Struct) || !(data instanceof Struct)) throw new NotAtThisBlockError(UNREADABLE);
    const lockEntry = mayHoldLocks(data) ? entryOf(await this.entries([keys.locks], block.hash, together !== undefined), keys.locks) : null;
    const locks = readStored(registry, layout.locks, lockEntry) as Vec<Struct>;
    const token = query.token?.toUpperCase() ?? (registry.chainTokens[0] ?? '').toUpperCase();
    const decimals = registry.chainDecimals[registry.chainTokens.map((name) => name.toUpperCase()).indexOf(token)];
    const amount = (digits: string) => (query.denominated ? denominate(digits, decimals) : digits);
    const body = {
      at: { hash: read.hash, height: String(read.number) },
      nonce: info.get('nonce')?.toString() ?? '0',
      tokenSymbol: token,
      ...balanceFields(data, locks, layout, amount),
      locks: locks.map((lock) => lockJson(lock, query.denominated ? amount : undefined)),
    };
    return { json: JSON.stringify(body), hash: read.hash, final: read.final };
  }

  /** Entries read together (shared), or one call each from a node that has refused that already. */
  private async entries(keys: Hex[], hash: Hex, togetherWorks: boolean): Promise<StoredEntries> {
    const together = togetherWorks ? await entriesTogether(this.node, keys, hash, this.storage) : undefined;
    return together ?? entriesApart(this.node, keys, hash);
  }
}

/**
 * Whether the account's data leaves room for a lock: anything frozen, or a layout without
 * the fields that would say (read the locks rather than guess).
 */
function mayHoldLocks(data: Struct): boolean {
  const frozen = ['frozen', 'miscFrozen', 'feeFrozen'].map((name) => data.get(name)).filter((field) => field !== undefined);
  return frozen.length === 0 || frozen.some((field) => !field.isEmpty);
}

/** An address whose bytes cannot be an account of this chain is the client's mistake (sidecar: a 500 for Ethereum ones). */
function checkAccountLength(query: BalanceQuery, layout: BalanceLayout): void {
  if (query.account.length === layout.accountIdBytes) return;
  if (query.ethereum) {
    throw badRequest(`Ethereum (20-byte) addresses are not accounts on this chain: its accounts are ${layout.accountIdBytes} bytes long.`);
  }
  const length = query.account.length;
  throw badRequest(`This address encodes a ${length}-byte value, not an account of this chain: its accounts are ${layout.accountIdBytes} bytes long.`);
}

/**
 * free, reserved, miscFrozen, feeFrozen, frozen and transferable, in sidecar's order. A
 * runtime with `frozen` (since 2023) has no miscFrozen/feeFrozen, and sidecar works out
 * what can be transferred; an older one has them, and no formula.
 */
function balanceFields(data: Struct, locks: Vec<Struct>, layout: BalanceLayout, amount: (digits: string) => string) {
  const frozen = data.get('frozen');
  if (!frozen) {
    const [miscFrozen, feeFrozen] = [data.get('miscFrozen'), data.get('feeFrozen')];
    if (!miscFrozen || !feeFrozen) throw new NotAtThisBlockError(UNREADABLE);
    return {
      free: amount(digitsOf(data.get('free'))),
      reserved: amount(digitsOf(data.get('reserved'))),
      miscFrozen: amount(digitsOf(miscFrozen)),
      feeFrozen: amount(digitsOf(feeFrozen)),
      frozen: NO_FROZEN,
      transferable: NO_TRANSFERABLE,
    };
  }
  const [free, reserved] = [digitsOf(data.get('free')), digitsOf(data.get('reserved'))];
  const lockAmounts = locks.map((lock) => BigInt(digitsOf(lock.get('amount'))));
  const canLeave = transferable({ free: BigInt(free), reserved: BigInt(reserved), frozen: BigInt(digitsOf(frozen)) }, lockAmounts, layout.existentialDeposit);
  return {
    free: amount(free),
    reserved: amount(reserved),
    miscFrozen: NO_MISC_FROZEN,
    feeFrozen: NO_FEE_FROZEN,
    frozen: amount(digitsOf(frozen)),
    transferable: amount(canLeave.toString()),
  };
}

/**
 * What can leave the account: free less what must stay (the frozen part beyond the
 * reserved, or the existential deposit once anything is frozen or reserved); nothing
 * when a lock holds every unit.
 */
export function transferable(
  { free, reserved, frozen }: { free: bigint; reserved: bigint; frozen: bigint },
  lockAmounts: bigint[],
  existentialDeposit: bigint,
): bigint {
  if (lockAmounts.includes(U128_MAX)) return 0n;
  const mustStay = frozen === 0n && reserved === 0n ? 0n : existentialDeposit;
  const held = frozen - reserved > mustStay ? frozen - reserved : mustStay;
  return free > held ? free - held : 0n;
}

/** An integer codec's decimal digits. */
function digitsOf(codec: Codec | undefined): string {
  return codec?.toString() ?? '0';
}

/** `{id, amount, reasons}` as sidecar sends a lock, the amount denominated when asked. */
function lockJson(lock: Struct, denominated: ((digits: string) => string) | undefined): JsonValue {
  const json = toSidecarJson(lock) as Record<string, JsonValue>;
  if (!denominated) return json;
  return { id: json.id, amount: denominated(digitsOf(lock.get('amount'))), reasons: json.reasons };
}
