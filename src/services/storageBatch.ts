// Storage read for many keys at one block in one wave: state_queryStorageAt in chunks
// (all sent together), or, from a node that refuses that method, each key on its own
// in one further wave; and a map's keys listed page by page, with a bound.
import { badRequest, IncompleteNodeAnswerError, NotAtThisBlockError } from '../errors';
import { NodeRpcError, type Hex, type NodeClient } from '../rpc/nodeClient';
import { wave } from '../rpc/requestStats';
import { storageAt } from './storage';

type ChangeSet = { block: Hex; changes: [Hex, Hex | null][] };

/** Keys per state_queryStorageAt call: a node's answer stays well under its message limits. */
const KEYS_PER_CALL = 1000;
/** Keys per state_getKeysPaged page (polkadot.js lists with the same size). */
export const KEYS_PER_PAGE = 1000;

/** Each key's value (null: nothing stored there). */
export async function readKeys(node: NodeClient, keys: Hex[], hash: Hex): Promise<(Hex | null)[]> {
  if (keys.length === 0) return [];
  const chunks: Hex[][] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_CALL) chunks.push(keys.slice(i, i + KEYS_PER_CALL));
  const answers = await wave(chunks.map((chunk) => together(node, chunk, hash)));
  let stored: Map<Hex, Hex | null>;
  if (answers.every((answer) => answer !== undefined)) {
    stored = new Map(answers.flatMap((answer) => [...(answer ?? [])]));
  } else {
    const values = await wave(keys.map((key) => storageAt(node, key, hash)));
    if (values.some((value) => value === undefined)) throw new NotAtThisBlockError(`The node no longer has the state of block ${hash} (pruned).`);
    stored = new Map(keys.map((key, i) => [key, values[i] ?? null]));
  }
  return keys.map((key) => {
    const value = stored.get(key);
    if (value === undefined) throw new IncompleteNodeAnswerError('The node left a storage key out of its answer.');
    return value;
  });
}

/** The keys' values in one call; undefined when the node answers an error (it may not offer the method). */
function together(node: NodeClient, keys: Hex[], hash: Hex): Promise<Map<Hex, Hex | null> | undefined> {
  return node.send<ChangeSet[]>('state_queryStorageAt', [keys, hash]).then(
    (sets) => {
      const set = Array.isArray(sets) ? (sets.find((one) => one.block === hash) ?? sets[0]) : undefined;
      if (!set || !Array.isArray(set.changes)) return undefined;
      // A node lists only what it found: a key it leaves out holds nothing.
      const found = new Map<Hex, Hex | null>(keys.map((key) => [key, null]));
      for (const [key, value] of set.changes) found.set(key, value);
      return found;
    },
    (error: unknown) => {
      if (error instanceof NodeRpcError) return undefined;
      throw error;
    },
  );
}

export interface ListBound {
  /** More keys than this and the listing stops: a 400 saying `tooMany`. */
  maxKeys: number;
  tooMany: string;
  pageSize?: number;
}

/**
 * Every key under `prefix` at `hash`, a page per wave, at most `maxKeys` (so at most
 * maxKeys / pageSize + 1 calls): a map longer than that is refused rather than read.
 */
export async function listKeys(node: NodeClient, prefix: Hex, hash: Hex, { maxKeys, tooMany, pageSize = KEYS_PER_PAGE }: ListBound): Promise<Hex[]> {
  const keys: Hex[] = [];
  let start: Hex | null = null;
  for (;;) {
    const page: Hex[] = await node.send<Hex[]>('state_getKeysPaged', [prefix, pageSize, start ?? prefix, hash]).catch((error: unknown) => {
      if (error instanceof NodeRpcError) throw new NotAtThisBlockError(`The node no longer has the state of block ${hash} (pruned).`);
      throw error;
    });
    keys.push(...page.filter((key) => key.startsWith(prefix)));
    if (keys.length > maxKeys) throw badRequest(tooMany);
    if (page.length < pageSize) return keys;
    start = page[page.length - 1] ?? null;
  }
}
