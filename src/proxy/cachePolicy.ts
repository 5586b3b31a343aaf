// Which JSON-RPC calls have answers that can never change, and under what key.
// A call qualifies only when it names its block by hash (or, for a block hash
// by number, when that number is finalized); anything about "latest" passes
// through uncached.

/** Methods whose last parameter, when present, is the block hash they read at. */
const AT_HASH: Record<string, number> = {
  chain_getBlock: 0,
  chain_getHeader: 0,
  state_getStorage: 1,
  state_getStorageAt: 1,
  state_getStorageHash: 1,
  state_getStorageHashAt: 1,
  state_getStorageSize: 1,
  state_getStorageSizeAt: 1,
  state_getMetadata: 0,
  state_getRuntimeVersion: 0,
  chain_getRuntimeVersion: 0,
  state_call: 2,
  state_callAt: 2,
  state_getKeysPaged: 3,
  state_getKeysPagedAt: 3,
  state_queryStorageAt: 1,
  payment_queryInfo: 1,
  payment_queryFeeDetails: 1,
  childstate_getStorage: 2,
  // The new API's archive calls name their block by hash first.
  archive_v1_body: 0,
  archive_v1_header: 0,
  archive_v1_call: 0,
};

/** Answers the same for as long as the chain is the chain (the chain spec's name and properties, by either API). */
const CONSTANT = new Set([
  'archive_v1_genesisHash',
  'chainSpec_v1_genesisHash',
  'chainSpec_v1_chainName',
  'chainSpec_v1_properties',
  'system_chain',
  'system_properties',
]);

/** Methods whose one parameter is a height, kept once it is finalized. */
const BY_HEIGHT = new Set(['chain_getBlockHash', 'archive_v1_hashByHeight']);

/** Methods that change something or whose answer is about now: never cached, never merged. */
const NEVER_MERGE = /^(author_|dev_|system_(addReservedPeer|removeReservedPeer|addLogFilter|resetLogFilter))/;

const HASH = /^0x[0-9a-fA-F]{64}$/;

/** Where `method` takes the hash of the block it reads at, if it takes one. */
export function atHashPosition(method: string): number | undefined {
  return Object.hasOwn(AT_HASH, method) ? AT_HASH[method] : undefined;
}

export type CacheDecision =
  | { kind: 'immutable'; key: string }
  | { kind: 'finalizedNumber'; key: string; number: number }
  | { kind: 'passThrough'; mergeKey?: string };

/** Longer lists of heights pass through uncached: each is a key of its own, too costly to keep in endless variants. */
const MAX_LISTED_HEIGHTS = 256;

function heightOf(param: unknown): number {
  return typeof param === 'number' ? param : typeof param === 'string' ? Number(param) : NaN;
}

/** A call of a chain constant: the same answer for as long as the proxy runs. */
export function isConstantCall(method: string, params: readonly unknown[]): boolean {
  return params.length === 0 && CONSTANT.has(method);
}

export function callKey(method: string, params: unknown[]): string {
  return `${method}:${JSON.stringify(params)}`;
}

export function decide(method: string, params: unknown): CacheDecision {
  const list = Array.isArray(params) ? params : params === undefined ? [] : [params];
  const key = callKey(method, list);
  if (NEVER_MERGE.test(method)) return { kind: 'passThrough' };
  const at = AT_HASH[method];
  if (at !== undefined && typeof list[at] === 'string' && HASH.test(list[at] as string)) {
    return { kind: 'immutable', key };
  }
  if (CONSTANT.has(method) && list.length === 0) return { kind: 'immutable', key };
  if (BY_HEIGHT.has(method) && list.length === 1) {
    // One height, or a list of them (a window of hashes, as fastcar asks): kept once the highest is finalized.
    const numbers = Array.isArray(list[0]) ? (list[0].length <= MAX_LISTED_HEIGHTS ? list[0].map(heightOf) : []) : [heightOf(list[0])];
    if (numbers.length > 0 && numbers.every((number) => Number.isInteger(number) && number >= 0))
      return { kind: 'finalizedNumber', key, number: Math.max(...numbers) };
  }
  // Identical calls in flight still share one upstream request.
  return { kind: 'passThrough', mergeKey: key };
}
