// Where did an extrinsic land: its hash -> (height, index) for the newest finalized
// blocks. Fed by following the finalized head (the feed the block streams follow),
// every height in order, then filled back down to the window's start at a bounded
// pace. Only finalized heights are ever read, so nothing here can be undone by a
// fork. A block's list of hashes is kept (in Redis too, keyed by height) by whoever
// builds its answer; a new height is indexed from that build, the one the fleet shares
// (the prebuilder's), so the fleet reads each new block once, for the build, not once
// more per replica. A height no build kept is read from the node and its list kept.
// Searches of other heights (`from`/`to`) read blocks the same way.
import { blake2AsU8a } from '@polkadot/util-crypto';

import { ExtrinsicWindow, HASH_BYTES, indexIn, type ExtrinsicPlace } from '../../cache/extrinsicWindow';
import type { TieredCache } from '../../cache/tieredCache';
import { bytesOfHex } from '../../decode/hex';
import type { Logger } from '../../logger';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { extrinsicHashesKey } from '../blocks/blocksService';
import type { BlockIds } from '../shared/at/blockIds';
import type { FinalizedFeed } from './finalizedFeed';
import { pauseAfterFailures } from './retryPause';

/** Blocks read at once by a search. */
const SEARCH_WINDOW = 8;
/** Filling back is paced to this many blocks a second, so a start does not crowd the node. */
const BACKFILL_PER_SECOND = 50;

export interface IndexCoverage {
  /** Heights held, both included (none: low > high). */
  low: number;
  high: number;
  /** The height filling back stops at (the window's lowest once full). */
  floor: number;
}

export interface ExtrinsicIndexParts {
  ids: Pick<BlockIds, 'hashOf'>;
  node: Pick<NodeClient, 'getBlock'>;
  feed: Pick<FinalizedFeed, 'head' | 'currentHead' | 'onAdvance'>;
  /** Where block answers' builds keep the hashes (extrinsicHashesKey), in process and in Redis. */
  cache: Pick<TieredCache, 'get' | 'set'>;
  /** The shared build of a new finalized height (which keeps its hashes); none: the index reads the block itself. */
  built?: (height: number) => Promise<unknown>;
  logger: Logger;
  /** Finalized blocks held; 0 turns the index off (searches with from/to still work). */
  size: number;
}

export class ExtrinsicIndex {
  readonly window = new ExtrinsicWindow();
  private running = false;
  private closed = false;
  private backfillAt = 0;

  constructor(private readonly parts: ExtrinsicIndexParts) {}

  get size(): number {
    return this.parts.size;
  }

  start(): void {
    if (this.parts.size <= 0) return;
    this.parts.feed.onAdvance(() => this.kick());
    this.kick();
  }

  close(): void {
    this.closed = true;
  }

  coverage(): IndexCoverage {
    const { low, high } = this.window;
    return { low: high < 0 ? 0 : low, high, floor: Math.max(0, high - this.parts.size + 1) };
  }

  /** Where `hash` is among the indexed blocks. */
  find(hash: Hex): ExtrinsicPlace | undefined {
    return this.window.find(Buffer.from(bytesOfHex(hash)));
  }

  /**
   * Where `hash` is among heights `from`-`to` (finalized; the controller bounds the window):
   * the lowest such height. Blocks are read a few at a time, in order, and none after
   * `signal` aborts or the hash is found.
   */
  async search(hash: Hex, from: number, to: number, signal: AbortSignal): Promise<ExtrinsicPlace | undefined> {
    const wanted = Buffer.from(bytesOfHex(hash));
    const reading: Promise<Buffer>[] = [];
    let next = from;
    const readNext = () => {
      const read = this.hashesAt(next++);
      read.catch(() => undefined); // awaited in order below
      reading.push(read);
    };
    for (let height = from; height <= to; height++) {
      while (next <= to && reading.length < SEARCH_WINDOW) readNext();
      const hashes = await reading.shift()!;
      if (signal.aborted) return undefined;
      const index = indexIn(hashes, wanted);
      if (index >= 0) return { height, index };
    }
    return undefined;
  }

  private kick(): void {
    if (this.running || this.closed) return;
    this.running = true;
    // Fed from the head's notifications, not from any request: its node calls are nobody's.
    void this.run().finally(() => {
      this.running = false;
    });
  }

  /** New heights first (every one, in order), then one older height at a time, paced. */
  private async run(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      const head = this.parts.feed.head;
      if (head < 0) return; // the first notification will kick again
      const { window } = this;
      let height: number;
      if (window.size === 0) height = head;
      else if (window.high < head) height = window.high + 1;
      else if (window.low > this.coverage().floor) {
        height = window.low - 1;
        const wait = this.backfillAt + 1000 / BACKFILL_PER_SECOND - Date.now();
        if (wait > 0) await sleep(wait);
        this.backfillAt = Date.now();
        // The head may have moved meanwhile: new heights go first.
        if (this.parts.feed.head > window.high) continue;
      } else return;
      try {
        const hashes = await this.hashesAt(height, height > window.high);
        failures = 0;
        // Filling back and following never overlap (one loop), but the window may have moved under an await.
        if (window.size > 0 && height !== window.high + 1 && height !== window.low - 1) continue;
        window.add(height, hashes);
        while (window.size > this.parts.size) window.dropLowest();
      } catch (error) {
        failures += 1;
        this.parts.logger.debug({ err: error, height }, 'indexing a finalized block failed; retrying');
        await pauseAfterFailures(failures);
      }
    }
  }

  /**
   * A finalized height's extrinsic hashes: from the window, as kept by a build, or read
   * from the node (and kept). `following`: a new height, whose shared build is awaited
   * rather than the block read again.
   */
  private async hashesAt(height: number, following = false): Promise<Buffer> {
    const held = this.window.hashesAt(height);
    if (held) return held;
    const { cache, built } = this.parts;
    const key = extrinsicHashesKey(height);
    const kept = await this.kept(key);
    if (kept) return kept;
    if (following && built) {
      // A failed build is the request path's to report: the block is read below.
      await built(height).catch(() => undefined);
      const fromBuild = await this.kept(key);
      if (fromBuild) return fromBuild;
    }
    const hash = await this.parts.ids.hashOf(height);
    const block = await this.parts.node.getBlock(hash);
    if (!block) throw new Error(`the node does not have finalized block ${height} (${hash})`);
    const { extrinsics } = block.block;
    const hashes = Buffer.allocUnsafe(extrinsics.length * HASH_BYTES);
    extrinsics.forEach((extrinsic, index) => {
      hashes.set(blake2AsU8a(bytesOfHex(extrinsic), 256), index * HASH_BYTES);
    });
    cache.set(key, hashes.toString('hex'));
    return hashes;
  }

  private async kept(key: string): Promise<Buffer | undefined> {
    const text = await this.parts.cache.get(key).catch(() => undefined);
    // Redis is another process's word: only a well-formed list is taken.
    return text !== undefined && /^(?:[0-9a-f]{64})*$/.test(text) ? Buffer.from(text, 'hex') : undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
