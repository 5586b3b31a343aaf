// What a cacheable answer must look like before the proxy keeps it. An upstream
// that is broken, lagging or lying must not leave its answer behind for every
// later client: a cached value is checked for its type per method and, where
// the call names a block by hash, for being that block.
import { TypeRegistry } from '@polkadot/types';
import { blake2AsHex } from '@polkadot/util-crypto';

const HASH = /^0x[0-9a-fA-F]{64}$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;
const HEX_NUMBER = /^0x[0-9a-fA-F]{1,16}$/;

const isHex = (value: unknown): value is string => typeof value === 'string' && HEX.test(value);
const isHash = (value: unknown): value is string => typeof value === 'string' && HASH.test(value);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isHeader(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const digest = value.digest;
  return (
    isHash(value.parentHash) &&
    typeof value.number === 'string' &&
    HEX_NUMBER.test(value.number) &&
    isHash(value.stateRoot) &&
    isHash(value.extrinsicsRoot) &&
    isObject(digest) &&
    Array.isArray(digest.logs) &&
    digest.logs.every(isHex)
  );
}

function isSignedBlock(value: unknown): value is { block: { header: unknown } } {
  if (!isObject(value) || !isObject(value.block)) return false;
  const { header, extrinsics } = value.block;
  return isHeader(header) && Array.isArray(extrinsics) && extrinsics.every(isHex) && (value.justifications === null || Array.isArray(value.justifications));
}

function isRuntimeVersion(value: unknown): boolean {
  return isObject(value) && typeof value.specName === 'string' && Number.isInteger(value.specVersion) && Array.isArray(value.apis);
}

const registry = new TypeRegistry();

/** The block hash of a value a node sent as a header (blake2-256 of its SCALE encoding), or undefined when it is not one. */
export function hashIfHeader(header: unknown): string | undefined {
  try {
    return registry.createType('Header', header).hash.toHex();
  } catch {
    return undefined;
  }
}

type Check = (result: unknown, params: unknown[]) => boolean;

/** Whether the result is of the method's type. Methods not listed here are never cached. */
const SHAPES: Map<string, Check> = new Map<string, Check>([
  // A list of heights is answered with a list of their hashes.
  [
    'chain_getBlockHash',
    (result, params) => (Array.isArray(params[0]) ? Array.isArray(result) && result.length === params[0].length && result.every(isHash) : isHash(result)),
  ],
  ['chain_getHeader', isHeader],
  ['chain_getBlock', isSignedBlock],
  ['state_getStorage', isHex],
  ['state_getStorageAt', isHex],
  ['state_getStorageHash', isHash],
  ['state_getStorageHashAt', isHash],
  ['state_getStorageSize', (result) => Number.isInteger(result) && (result as number) >= 0],
  ['state_getStorageSizeAt', (result) => Number.isInteger(result) && (result as number) >= 0],
  ['state_getMetadata', isHex],
  ['state_getRuntimeVersion', isRuntimeVersion],
  ['chain_getRuntimeVersion', isRuntimeVersion],
  ['state_call', isHex],
  ['state_callAt', isHex],
  ['state_getKeysPaged', (result) => Array.isArray(result) && result.every(isHex)],
  ['state_getKeysPagedAt', (result) => Array.isArray(result) && result.every(isHex)],
  ['state_queryStorageAt', (result) => Array.isArray(result) && result.every((set) => isObject(set) && isHash(set.block) && Array.isArray(set.changes))],
  ['payment_queryInfo', (result) => isObject(result) && 'partialFee' in result],
  ['payment_queryFeeDetails', (result) => isObject(result) && 'inclusionFee' in result],
  ['childstate_getStorage', isHex],
  // The new API: headers as SCALE hex, bodies as lists of hex, calls as success or failure.
  ['archive_v1_header', isHex],
  ['archive_v1_body', (result) => Array.isArray(result) && result.every(isHex)],
  ['archive_v1_call', (result) => isObject(result) && (result.success === false || (result.success === true && isHex(result.value)))],
  ['archive_v1_genesisHash', isHash],
  // A finalized height has exactly one block.
  ['archive_v1_hashByHeight', (result) => Array.isArray(result) && result.length <= 1 && result.every(isHash)],
  ['chainSpec_v1_genesisHash', isHash],
  ['chainSpec_v1_chainName', (result) => typeof result === 'string'],
  ['chainSpec_v1_properties', isObject],
  ['system_chain', (result) => typeof result === 'string' && result.length > 0],
  ['system_properties', isObject],
]);

export type Verdict = 'cache' | 'serve' | 'invalid' | 'absent';

/** Calls about one block, named by its hash first: null means this node has not that block (yet), not that there is none. */
const ABOUT_A_BLOCK = new Set(['archive_v1_header', 'archive_v1_body', 'archive_v1_call', 'chain_getHeader', 'chain_getBlock']);

/**
 * `cache`: of the right type and, for a block or header by hash, that very block.
 * `serve`: of the right type but not provably the block asked for (chopsticks' made-up
 * genesis hash) or empty (null, `[]`): passed on, not kept. `absent`: null about a block named by
 * its hash: another node is asked, and null is passed on (not kept) when none has it. `invalid`:
 * not an answer to this call.
 */
export function judge(method: string, params: unknown[], result: unknown): Verdict {
  if (result === null || result === undefined) {
    // Not there (yet): never kept; a block by hash may be on another node (one further along, or on its own fork).
    return ABOUT_A_BLOCK.has(method) && typeof params[0] === 'string' ? 'absent' : 'serve';
  }
  const check = SHAPES.get(method);
  if (!check) return 'serve';
  if (!check(result, params)) return 'invalid';
  // An empty list (no keys under a prefix, say) is cheap to ask for in endless variants: passed on, never kept.
  if (Array.isArray(result) && result.length === 0) return 'serve';
  // A failed call's message may change (the spec says so): passed on, never kept.
  if (method === 'archive_v1_call' && (result as { success: boolean }).success === false) return 'serve';
  if (method === 'archive_v1_header') return blake2AsHex(result as string) === String(params[0]).toLowerCase() ? 'cache' : 'serve';
  if (method === 'chain_getHeader' || method === 'chain_getBlock') {
    const header = method === 'chain_getBlock' ? (result as { block: { header: unknown } }).block.header : result;
    return hashIfHeader(header) === String(params[0]).toLowerCase() ? 'cache' : 'serve';
  }
  return 'cache';
}
