// Storage entries read at a block whose keys depend on its runtime's types: built first
// with the newest runtime loaded and sent in the same wave as the block's version (and
// header, for a hash), then checked against the block's own runtime; read again, one
// wave later, only in the rare case that runtime builds other keys.
import type { TieredCache } from '../../../cache/tieredCache';
import type { Hex, NodeClient } from '../../../rpc/nodeClient';
import { wave } from '../../../rpc/requestStats';
import { readResolvedAt, type ReadAt, type ResolvedAt } from '../at/blockAt';
import type { Runtime, RuntimeRegistry } from '../../runtimes';
import { readKeys } from './storageBatch';

/** The keys a read needs under a runtime; throws (a 400, say) when that runtime cannot build them. */
export type KeysFor = (runtime: Runtime) => Hex[];

export interface KeysRead {
  read: ReadAt;
  runtime: Runtime;
  /** Each key's value, in the order keysFor gave them (null: nothing stored). */
  values: (Hex | null)[];
}

export async function readKeysAt(node: NodeClient, cache: TieredCache, runtimes: RuntimeRegistry, block: ResolvedAt, keysFor: KeysFor): Promise<KeysRead> {
  const guessed = guessKeys(runtimes.newest, keysFor);
  const [read, early] = await wave([
    readResolvedAt(node, cache, block),
    guessed ? readKeys(node, guessed, block.hash).catch((error: unknown) => error as Error) : undefined,
  ] as const);
  const runtime = await runtimes.get(read.version, read.hash);
  const keys = keysFor(runtime);
  const sameKeys = guessed !== undefined && keys.length === guessed.length && keys.every((key, i) => key === guessed[i]);
  if (sameKeys && early instanceof Error) throw early;
  const values = sameKeys && early && !(early instanceof Error) ? early : await readKeys(node, keys, read.hash);
  return { read, runtime, values };
}

function guessKeys(newest: Runtime | undefined, keysFor: KeysFor): Hex[] | undefined {
  if (!newest) return undefined;
  try {
    return keysFor(newest);
  } catch {
    // The block's own runtime decides whether the request is wrong.
    return undefined;
  }
}
