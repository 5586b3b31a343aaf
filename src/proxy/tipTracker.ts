// The block a call about "latest" is answered at. Each WebSocket upstream is
// followed by a new-heads subscription: new heads rather than finalized ones,
// because a client that leaves out the block hash asks about the best block, and
// that is what the node itself would answer. The tip is the highest head an
// available upstream announced; among equal heights the one already chosen is
// kept, so two nodes a few milliseconds apart do not make the cache flip.
// Each upstream's recent heads are remembered, so that a call at the tip goes only
// to a node that has that block.
import type { Logger } from '../logger';
import { hashIfHeader } from './resultShapes';
import type { UpstreamPool } from './upstreamPool';
import type { Upstream } from './upstream';

export interface Tip {
  hash: string;
  number: number;
}

interface Followed {
  head?: Tip;
  /** Heads it announced lately, newest last: the blocks it is known to hold. */
  recent: string[];
  /** Ends the subscription; undefined while it is being opened or after it failed. */
  stop?: () => Promise<void>;
  opening: boolean;
  forgotten: boolean;
}

/** Heads remembered per upstream: enough for a call resolved a few blocks ago to still find its node. */
const RECENT_HEADS = 32;
/** A subscription that could not be opened (node down, or over HTTP) is tried again this often. */
const RETRY_MS = 2_000;

export class TipTracker {
  private readonly followed = new Map<Upstream, Followed>();
  private chosen?: Tip;
  private readonly movedListeners: ((tip: Tip | undefined) => void)[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly logger: Logger,
  ) {}

  /** Follows every upstream of the pool, and keeps following it as it changes; started again, it only syncs (after a reload). */
  start(): void {
    this.sync();
    this.timer ??= setInterval(() => this.sync(), RETRY_MS);
    this.timer.unref();
  }

  /** Called when the tip moves: what was kept for the old one can go. */
  onMove(listener: (tip: Tip | undefined) => void): void {
    this.movedListeners.push(listener);
  }

  /** Follows upstreams new to the pool (and retries failed ones); stops following those it no longer has. */
  sync(): void {
    const present = new Set(this.pool.upstreams);
    for (const [upstream, followed] of this.followed) {
      if (present.has(upstream)) continue;
      followed.forgotten = true;
      this.followed.delete(upstream);
      void followed.stop?.().catch(() => undefined);
    }
    for (const upstream of present) {
      const followed = this.followed.get(upstream) ?? { recent: [], opening: false, forgotten: false };
      this.followed.set(upstream, followed);
      // A node still connecting is waited for (subscribe does, within the call timeout); one that fails is tried on the next sync.
      if (!followed.stop && !followed.opening && upstream.supportsSubscriptions) this.open(upstream, followed);
    }
    this.current();
  }

  private open(upstream: Upstream, followed: Followed): void {
    followed.opening = true;
    upstream
      .subscribe('chain_newHead', 'chain_subscribeNewHeads', 'chain_unsubscribeNewHeads', [], (header) => this.announced(followed, header))
      .then(
        (stop) => {
          if (followed.forgotten) return void stop().catch(() => undefined);
          followed.stop = stop;
        },
        (error: unknown) => this.logger.debug({ err: error }, 'following the new heads of an upstream failed; tried again'),
      )
      .finally(() => (followed.opening = false));
  }

  private announced(followed: Followed, header: unknown): void {
    const hash = hashIfHeader(header);
    const number = parseInt(String((header as { number?: unknown } | null)?.number), 16);
    if (!hash || !Number.isSafeInteger(number)) return;
    followed.head = { hash, number };
    if (!followed.recent.includes(hash)) {
      followed.recent.push(hash);
      if (followed.recent.length > RECENT_HEADS) followed.recent.shift();
    }
    this.current();
  }

  /** The tip now, or undefined when no available upstream has announced a head. */
  current(): Tip | undefined {
    let best: Tip | undefined;
    let keepsChosen = false;
    for (const [upstream, followed] of this.followed) {
      const head = followed.head;
      if (!head || !upstream.available) continue;
      if (this.chosen && head.hash === this.chosen.hash) keepsChosen = true;
      if (!best || head.number > best.number) best = head;
    }
    const next = keepsChosen && best && best.number === this.chosen!.number ? this.chosen : best;
    if (next?.hash !== this.chosen?.hash) {
      this.chosen = next;
      for (const listener of this.movedListeners) listener(next);
    }
    return next;
  }

  /** Whether `upstream` has announced the block `hash` lately (and so holds it). */
  holds(upstream: Upstream, hash: string): boolean {
    return this.followed.get(upstream)?.recent.includes(hash) ?? false;
  }

  /** Whether an available upstream holds `hash`: a call at it can be placed. */
  reachable(hash: string): boolean {
    for (const [upstream, followed] of this.followed) if (upstream.available && followed.recent.includes(hash)) return true;
    return false;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const stops = [...this.followed.values()].map((followed) => {
      followed.forgotten = true;
      return followed.stop?.().catch(() => undefined);
    });
    this.followed.clear();
    await Promise.all(stops);
  }
}
