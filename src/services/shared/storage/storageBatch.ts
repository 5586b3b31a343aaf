// Storage read for many keys at one block in one wave: state_queryStorageAt in chunks
// (all sent together), or, from a node that refuses that method, each key on its own
// in one further wave; and a map's keys listed page by page, with a bound. The one
// reader of change sets: the account routes use its parts with the chain's shared
// same-turn queries.
import { badRequest, IncompleteNodeAnswerError, NotAtThisBlockError } from '../../../errors';
import type { Hex, NodeClient } from '../../../rpc/nodeClient';
import { NodeRpcError } from '../../../rpc/nodeErrors';
import { wave } from '../../../rpc/requestStats';
import type { ChangeSet, StorageQueries } from '../../../rpc/storageQueries';
import { storageAt } from './wellKnownKeys';

/** Keys per state_queryStorageAt call: a node's answer stays well under its message limits. */
const KEYS_PER_CALL = 1000;
/** Keys per state_getKeysPaged page (polkadot.js lists with the same size). */
export const KEYS_PER_PAGE = 1000;

/** Each key's value (null: nothing stored there). */
export type StoredEntries = Map<Hex, Hex | null>;

/** Each key's value (null: nothing stored there). */
export async function readKeys(node: NodeClient, keys: Hex[], hash: Hex): Promise<(Hex | null)[]> {
  if (keys.length === 0) return [];
  const chunks: Hex[][] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_CALL) chunks.push(keys.slice(i, i + KEYS_PER_CALL));
  const answers = await wave(chunks.map((chunk) => entriesTogether(node, chunk, hash)));
  const stored = answers.every((answer) => answer !== undefined)
    ? new Map(answers.flatMap((answer) => [...(answer ?? [])]))
    : await entriesApart(node, keys, hash);
  return keys.map((key) => entryOf(stored, key));
}

/**
 * The entries in one state_queryStorageAt (shared with other requests reading at that block
 * in the same turn, when given the chain's StorageQueries); undefined when the node answers
 * an error (it may not offer the method, or no longer have the state).
 */
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

/** What `entriesTogether` could not read, one state_getStorage a key in one wave; a 404-like error when the node has no state at that block. */
export async function entriesApart(node: NodeClient, keys: Hex[], hash: Hex): Promise<StoredEntries> {
  const values = await wave(keys.map((key) => storageAt(node, key, hash)));
  if (values.some((value) => value === undefined)) throw new NotAtThisBlockError(`The node no longer has the state of block ${hash} (pruned).`);
  return new Map(keys.map((key, i) => [key, values[i] ?? null]));
}

/**
 * The value at `key`. A node lists every key it is asked about in a change set (null where
 * nothing is stored), so a key left out is a cut-short answer, never a missing value.
 */
export function entryOf(entries: StoredEntries, key: Hex): Hex | null {
  const found = entries.get(key);
  if (found === undefined) throw new IncompleteNodeAnswerError('The node left a storage key out of its answer.');
  return found;
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
