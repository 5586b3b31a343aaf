// Hashes of finalized heights, asked of the node a window at a time:
// chain_getBlockHash takes a list of heights, so the one call a height costs
// anyway brings its neighbours too, and a walk over the chain (an indexer's
// usual pattern) then pays one round trip per block instead of two. Only
// heights already finalized are asked this way: every hash kept can never
// change. The windows are kept in a small memory of their own, beside the
// answer cache, so a walk gains even with that cache off.
import { LRUCache } from 'lru-cache';

import { SingleFlight } from '../../../cache/singleFlight';
import { IncompleteNodeAnswerError } from '../../../errors';
import type { Hex, NodeClient } from '../../../rpc/nodeClient';
import { NodeRpcError } from '../../../rpc/nodeErrors';

/** Heights per window: one call brings them all; aligned, so requests near each other share one. */
export const HASH_WINDOW = 64;
/** Windows remembered: 4,096 hashes, about half a megabyte. */
const KEPT_WINDOWS = 64;

const HASH = /^0x[0-9a-f]{64}$/i;

type Window = readonly (Hex | null)[];

export class HashWindows {
  private readonly windows = new LRUCache<number, Window>({ max: KEPT_WINDOWS });
  private readonly fetches = new SingleFlight<Window>();
  /** Set once the node refuses a list of heights: each height is asked alone from then on. */
  private refused = false;

  /** The hash of `number` if a window holds it (no call). */
  known(number: number): Hex | undefined {
    const start = windowStart(number);
    return this.windows.get(start)?.[number - start] ?? undefined;
  }

  /**
   * The hash of finalized height `number`, asked with its window (up to `finalizedNumber`),
   * through `node` (the request's view: the call is counted as its own, or the wait for
   * another request's identical call as one of its rounds). Undefined when the node takes
   * no lists or has no hash there: the caller asks for the one height as before.
   */
  async hashOf(node: NodeClient, number: number, finalizedNumber: number): Promise<Hex | undefined> {
    if (this.refused || number > finalizedNumber) return this.known(number);
    const start = windowStart(number);
    const end = Math.min(start + HASH_WINDOW - 1, finalizedNumber);
    const { promise, joined } = this.fetches.run(`${start}-${end}`, () => this.fetch(node, start, end));
    try {
      const window = await (joined ? node.waitFor(promise) : promise);
      return window[number - start] ?? undefined;
    } catch (error) {
      if (!(error instanceof NodeRpcError || error instanceof IncompleteNodeAnswerError)) throw error;
      this.refused = true;
      return undefined;
    }
  }

  private async fetch(node: NodeClient, start: number, end: number): Promise<Window> {
    // Near the finalized head a window grows a height at a time: only the heights it lacks are asked.
    const kept = this.windows.get(start) ?? [];
    const from = kept.length < end - start + 1 ? start + kept.length : start;
    const heights = Array.from({ length: end - from + 1 }, (_, i) => from + i);
    const answer: unknown = await node.getBlockHashes(heights);
    // Kept only if every entry is a hash (or null): an answer of another shape teaches us the node takes no lists.
    if (!Array.isArray(answer) || answer.length !== heights.length || !answer.every((hash) => hash === null || (typeof hash === 'string' && HASH.test(hash)))) {
      throw new IncompleteNodeAnswerError('The node answered a list of heights with something other than their hashes.');
    }
    const window: Window = from === start ? (answer as Window) : [...kept.slice(0, from - start), ...(answer as Window)];
    const now = this.windows.get(start);
    if (!now || now.length < window.length) this.windows.set(start, window);
    return window;
  }
}

function windowStart(number: number): number {
  return number - (number % HASH_WINDOW);
}
