// The block a read is made at (`at` on every family's routes but /blocks): its hash,
// its height and its runtime's version, in as few waves as what is known allows. The
// version at a hash never changes, so it is kept in the cache: a second read at the
// same block asks the node nothing for it.
//
// The names, from a request to its answer:
//   BlockId     a block as a client names it, by height or hash (blockIds.ts)
//   AtBlock     what `at` asks for: a BlockId, or the finalized head when absent
//   ResolvedAt  an AtBlock made a hash (BlockIds.at), its height when already known
//   ReadAt      the block a read is made at: hash, height, finality, runtime version
//               (readAt from an AtBlock, readResolvedAt from a ResolvedAt)
//   AnswerAt    an answer read at a block: its JSON, and whether it may be kept
import type { TieredCache } from '../../../cache/tieredCache';
import { UnknownBlockError } from '../../../errors';
import type { Hex, NodeClient } from '../../../rpc/nodeClient';
import { wave } from '../../../rpc/requestStats';
import type { BlockIds, BlockId } from './blockIds';

/** The runtime version as the node writes it (sidecar passes most of its fields on). */
export interface RuntimeVersionJson {
  specName: string;
  implName: string;
  authoringVersion: number;
  specVersion: number;
  implVersion: number;
  transactionVersion: number;
  stateVersion?: number;
  apis: [Hex, number][];
}

export interface ReadAt {
  hash: Hex;
  number: number;
  /** The block can no longer change: what is read at it may be kept, by hash. */
  final: boolean;
  version: RuntimeVersionJson;
}

export type AtBlock = BlockId | 'finalized';

/** An answer read at a block: its JSON, and whether it can never change (then it may be kept, by hash). */
export interface AnswerAt {
  json: string;
  hash: string;
  final: boolean;
  /** Set when the same bytes answer at every block of a runtime: a key naming them, so what is made of them is made once. */
  sharedKey?: string;
}

export type ResolvedAt = Awaited<ReturnType<BlockIds['at']>>;

const versionKey = (hash: Hex) => `rv:${hash}`;

/** The runtime version at `hash` if a read there already asked it (it never changes at a hash). */
export async function knownVersion(cache: TieredCache, hash: Hex): Promise<RuntimeVersionJson | undefined> {
  const kept = await cache.get(versionKey(hash));
  return kept ? (JSON.parse(kept) as RuntimeVersionJson) : undefined;
}

/** Asks the node the runtime version at `hash`, and keeps it for the next read there. */
export async function fetchVersion(node: NodeClient, cache: TieredCache, hash: Hex): Promise<RuntimeVersionJson> {
  const version = await node.send<RuntimeVersionJson>('state_getRuntimeVersion', [hash]);
  cache.set(versionKey(hash), JSON.stringify(version));
  return version;
}

/** The `at` of an answer read at `read`: its hash and height (as sidecar writes it, a decimal string). */
export const atJson = (read: Pick<ReadAt, 'hash' | 'number'>) => ({ hash: read.hash, height: String(read.number) });

export async function readAt(node: NodeClient, ids: BlockIds, cache: TieredCache, at: AtBlock): Promise<ReadAt> {
  return readResolvedAt(node, cache, await ids.at(at));
}

/** The same once `at` is resolved: a caller's own reads at that hash can then go out in the same wave. */
export async function readResolvedAt(node: NodeClient, cache: TieredCache, block: ResolvedAt): Promise<ReadAt> {
  const kept = await cache.get(versionKey(block.hash));
  let failure: unknown;
  const [version, header] = await wave([
    kept
      ? (JSON.parse(kept) as RuntimeVersionJson)
      : node.send<RuntimeVersionJson>('state_getRuntimeVersion', [block.hash]).catch((error: unknown) => {
          failure = error;
          return undefined;
        }),
    block.number === undefined ? node.getHeader(block.hash) : undefined,
  ] as const);
  // A hash the node does not know fails both; its missing header says why.
  if (block.number === undefined && !header) throw new UnknownBlockError(block.hash);
  if (!version) throw failure;
  if (!kept) cache.set(versionKey(block.hash), JSON.stringify(version));
  return { hash: block.hash, number: block.number ?? parseInt(header?.number ?? '0x0', 16), final: block.final, version };
}
