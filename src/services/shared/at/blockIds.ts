// Block ids to hashes: a height's hash from the cache once it is finalized (it can
// no longer change), else from the node, a finalized height with its window of
// neighbours (hashWindows.ts); the head's hashes; and the error for a height past
// the head. Each key is looked up once per request.
import type { TieredCache } from '../../../cache/tieredCache';
import { BeyondHeadError, IncompleteNodeAnswerError } from '../../../errors';
import type { Hex, NodeClient } from '../../../rpc/nodeClient';
import { wave } from '../../../rpc/requestStats';
import type { FinalizedHead } from '../../finalizedHead';
import { HashWindows } from './hashWindows';
import { hashOfHeader } from '../../headers';

/** A block as a client names it: by height or by hash. */
export type BlockId = { kind: 'number'; number: number } | { kind: 'hash'; hash: Hex };

/** Block numbers are u32: anything larger is past any head, and not worth asking the hash of. */
export function isPastAnyHead(number: number): boolean {
  return number > 0xffff_ffff;
}

export class BlockIds {
  constructor(
    private readonly node: NodeClient,
    private readonly finalized: FinalizedHead,
    private readonly cache: TieredCache,
    /** Shared by every request's resolver (services/chain.ts); one of its own by default. */
    private readonly windows = new HashWindows(),
  ) {}

  /** The hash of a finalized height, if a window or the cache has it (one lookup). */
  async cachedHash(number: number): Promise<Hex | undefined> {
    return this.finalized.hashAt(number) ?? this.windows.known(number) ?? ((await this.cache.get(heightKey(number))) as Hex | undefined);
  }

  /** The hash of a height, asked of the node (no cache lookup); kept once the height is finalized. */
  async fetchHash(number: number): Promise<Hex> {
    if (isPastAnyHead(number)) return this.beyondHead();
    // Known to be finalized without asking: the height comes with its window.
    if (this.finalized.known && number <= this.finalized.height) {
      const hash = await this.windows.hashOf(this.node, number, this.finalized.height);
      if (hash) {
        this.cache.set(heightKey(number), hash);
        return hash;
      }
    }
    const [hash, finalizedNumber] = await wave([this.node.getBlockHash(number), this.finalized.current()] as const);
    if (!hash) return this.beyondHead();
    if (number <= finalizedNumber) this.cache.set(heightKey(number), hash);
    return hash;
  }

  /** The hash of a height: the cache's, else the node's. */
  async hashOf(number: number): Promise<Hex> {
    if (isPastAnyHead(number)) return this.beyondHead();
    return (await this.cachedHash(number)) ?? this.fetchHash(number);
  }

  async resolve(id: BlockId): Promise<Hex> {
    return id.kind === 'hash' ? id.hash : this.hashOf(id.number);
  }

  /**
   * The block a read is made at (`at`): a height's hash (its window's or the cache's
   * once finalized), a hash as given, or the finalized head's. `number` is left out for a
   * hash: its header says it, read in the caller's next wave; `final` says the block
   * can no longer change (what is read at it can be kept).
   */
  async at(at: BlockId | 'finalized'): Promise<{ hash: Hex; number?: number; final: boolean }> {
    if (at === 'finalized') {
      const number = await this.finalized.current();
      return { hash: await this.hashOf(number), number, final: false };
    }
    if (at.kind === 'hash') return { hash: at.hash, final: true };
    const hash = await this.hashOf(at.number);
    return { hash, number: at.number, final: this.finalized.known && at.number <= this.finalized.height };
  }

  /** The block the head endpoints mean: the finalized head, or the best block. */
  async headHash(finalized: boolean): Promise<Hex> {
    // The head followed: a crowd polling the head costs the node nothing.
    if (finalized) return this.finalized.headHash ?? this.node.getFinalizedHead();
    const header = await this.node.getHeader();
    if (!header) throw new IncompleteNodeAnswerError('The node returned no best header.');
    return hashOfHeader(header);
  }

  /** The best block's height (0 if the node has none). */
  async bestNumber(): Promise<number> {
    const header = await this.node.getHeader();
    return header ? parseInt(header.number, 16) : 0;
  }

  /** Fails with the error for a height past the head, which names the head (one call to learn it). */
  async beyondHead(): Promise<never> {
    throw new BeyondHeadError(await this.bestNumber());
  }
}

function heightKey(number: number): string {
  return `h:${number}`;
}
