// Storage the services read by well-known keys: twox128(pallet) ++ twox128(item),
// fixed by the pallets' names, the same on every runtime that has them.
import type { Hex, NodeClient } from '../../../rpc/nodeClient';
import { NodeRpcError } from '../../../rpc/nodeErrors';

export const SYSTEM_EVENTS_KEY: Hex = '0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7';
export const SESSION_VALIDATORS_KEY: Hex = '0xcec5070d609dd3497f72bde07fc96ba088dcde934c658227ee1dfafcd6e16903';
export const TIMESTAMP_NOW_KEY: Hex = '0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb';
export const PARACHAIN_ID_KEY: Hex = '0x0d715f2646c8f85767b5d2764bb2782604a74d81251e398fd8a0a4d55023bb3f';

/**
 * `key` at the block `hash`: its value, null when nothing is stored there, undefined
 * when the node answered an error (it no longer has that state: pruned). Whatever is
 * undefined is reported as unavailable and never cached; a lost or slow node is the
 * request's failure.
 */
export function storageAt(node: NodeClient, key: Hex, hash: Hex): Promise<Hex | null | undefined> {
  return node.getStorage(key, hash).catch((error: unknown) => {
    if (error instanceof NodeRpcError) return undefined;
    throw error;
  });
}
