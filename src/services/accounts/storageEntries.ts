// Several storage entries of one block read together: one state_queryStorageAt (shared
// with other requests reading at that block in the same turn, when given the chain's
// StorageQueries), or, from a node that refuses that method, one state_getStorage each,
// a wave later.
import { IncompleteNodeAnswerError, NotAtThisBlockError } from '../../errors';
import { NodeRpcError, type Hex, type NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import type { ChangeSet, StorageQueries } from '../../rpc/storageQueries';
import { storageAt } from '../storage';

/** Each key's value (null: nothing stored there). */
export type StoredEntries = Map<Hex, Hex | null>;

/** The entries in one call; undefined when the node answers an error (it may not offer the method, or no longer have the state). */
export function entriesTogether(node: NodeClient, keys: Hex[], hash: Hex, shared?: StorageQueries): Promise<StoredEntries | undefined> {
  const asked = shared ? shared.query(node, keys, hash) : node.send<ChangeSet[]>('state_queryStorageAt', [keys, hash]);
  return asked.then(
    (sets) => {
      const set = Array.isArray(sets) ? (sets.find((one) => one.block === hash) ?? sets[0]) : undefined;
      return set && Array.isArray(set.changes) ? new Map(set.changes) : undefined;
    },
    (error: unknown) => {
      if (error instanceof NodeRpcError) return undefined;
      throw error;
    },
  );
}

/** What `entriesTogether` could not read, one call per key in one wave; a 404-like error when the node has no state at that block. */
export async function entriesApart(node: NodeClient, keys: Hex[], hash: Hex): Promise<StoredEntries> {
  const values = await wave(keys.map((key) => storageAt(node, key, hash)));
  if (values.some((value) => value === undefined)) throw new NotAtThisBlockError(`The node no longer has the state of block ${hash} (pruned).`);
  return new Map(keys.map((key, i) => [key, values[i] ?? null]));
}

/** The value at `key`; the node leaving a key out of its answer is its fault, not a missing value. */
export function entryOf(entries: StoredEntries, key: Hex): Hex | null {
  const found = entries.get(key);
  if (found === undefined) throw new IncompleteNodeAnswerError('The node left a storage key out of its answer.');
  return found;
}
