// Storage reads at one block that several requests ask in the same turn of the event
// loop go to the node as one state_queryStorageAt: an exchange polling a thousand
// accounts' balances at the head costs the node a few calls, not a thousand. Nothing
// waits for company: the call leaves once the turn's requests have been read
// (setImmediate), so a request alone pays no delay. The request that opened the
// batch sends (and counts) the call; the others count a wait on it.
import type { Hex, NodeClient } from './nodeClient';

export type ChangeSet = { block: Hex; changes: [Hex, Hex | null][] };

/** Keys per call at most: a node's answer stays well under its message limits. */
const MAX_KEYS = 1000;

interface Batch {
  keys: Set<Hex>;
  answer: Promise<ChangeSet[]>;
}

export class StorageQueries {
  private readonly open = new Map<Hex, Batch>();

  /** The node's change sets for `keys` at `hash` (with other requests' keys among them); `node` is the asking request's view. */
  query(node: NodeClient, keys: Hex[], hash: Hex): Promise<ChangeSet[]> {
    const joined = this.open.get(hash);
    if (joined && joined.keys.size + keys.length <= MAX_KEYS) {
      for (const key of keys) joined.keys.add(key);
      return node.waitFor(joined.answer);
    }
    const batch: Batch = { keys: new Set(keys), answer: Promise.resolve([]) };
    batch.answer = new Promise<ChangeSet[]>((resolve, reject) => {
      setImmediate(() => {
        if (this.open.get(hash) === batch) this.open.delete(hash);
        node.send<ChangeSet[]>('state_queryStorageAt', [[...batch.keys], hash]).then(resolve, reject);
      });
    });
    this.open.set(hash, batch);
    return batch.answer;
  }
}
