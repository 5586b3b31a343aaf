// The proxy's upstream nodes as one pool: picks a node by power of two
// choices on the fewest outstanding calls (or by hashing the client's address),
// skips nodes that are down, behind or backing off, and retries a failed call
// on another node. Each node is an Upstream (upstream.ts).
import { NodeTimeoutError, RpcError } from '../rpc/nodeErrors';
import { AbandonedCallError, type Slots } from '../slots';
import type { Verdict } from './resultShapes';
import { rendezvousPick } from './rendezvous';
import { OVERLOADED, Upstream, type UpstreamOptions } from './upstream';

/** No upstream could give a usable answer: none available, all failed, or all answered nonsense. */
export class NoUpstreamError extends Error {}

/** How long the proxy waits at start for a first upstream to open before it serves without one. */
const START_GRACE_MS = 5_000;

/** How a call's node is chosen: power of two choices on load, or by hashing the client's address (rendezvous.ts). */
export type BalanceMode = 'p2c' | 'hash';

export interface PoolOptions extends UpstreamOptions {
  /** How many blocks behind the best upstream a node may be and still serve. */
  maxLagBlocks: number;
  healthIntervalMs: number;
  retries: number;
  /** Default p2c. */
  balance?: BalanceMode;
  /** Each upstream's share of clients in `hash` mode, in the order of the URLs; 1 each if unset. */
  weights?: number[];
}

/** How the pool places and retries one call. */
export interface PoolCallOptions {
  retry: boolean;
  /** Only upstreams that have themselves finalized this height may answer. */
  minFinalized?: number;
  /** Sorts an answer; an `invalid` one counts as that upstream's failure. */
  judge: (result: unknown) => Verdict;
  /** Aborted when nobody waits for the answer any more. */
  signal?: AbortSignal;
  /** The client's own cap on calls at the nodes. */
  caller?: Slots;
  /** Only upstreams it accepts may answer (a call at the tip: those that have announced that block). */
  usable?: (upstream: Upstream) => boolean;
  /** The client's address: in `hash` mode, what places the call. */
  client?: string;
}

export class UpstreamPool {
  readonly upstreams: Upstream[];
  /** Removed by a reload, finishing what they hold before they close. */
  private readonly draining = new Set<Upstream>();
  private timer?: NodeJS.Timeout;

  constructor(
    urls: string[],
    private readonly options: PoolOptions,
  ) {
    if (urls.length === 0) throw new Error('the proxy needs at least one upstream URL');
    this.upstreams = urls.map((url) => new Upstream(url, options));
    this.upstreams.forEach((upstream, i) => {
      upstream.weight = options.weights?.[i] ?? 1;
    });
  }

  /**
   * Waits for the first upstream to open, at most `graceMs`: a proxy started before its
   * nodes serves at once (answering that no upstream can, until one opens) rather than
   * waiting on connections whose retries do not hold the process open.
   */
  async start(graceMs = START_GRACE_MS): Promise<boolean> {
    let grace: NodeJS.Timeout | undefined;
    const opened = await Promise.race([
      Promise.race(this.upstreams.map((upstream) => upstream.ready)).then(() => true),
      new Promise<boolean>((resolve) => {
        grace = setTimeout(() => resolve(false), graceMs);
      }),
    ]);
    clearTimeout(grace);
    await this.checkHealth();
    this.timer = setInterval(() => void this.checkHealth(), this.options.healthIntervalMs);
    this.timer.unref();
    return opened;
  }

  private async checkHealth(): Promise<void> {
    await Promise.all(this.upstreams.filter((u) => u.connected).map((u) => u.checkHealth()));
    const best = Math.max(...this.upstreams.map((u) => u.bestNumber));
    for (const upstream of this.upstreams) {
      if (upstream.bestNumber >= 0 && best - upstream.bestNumber > this.options.maxLagBlocks) upstream.healthy = false;
    }
  }

  /** Whether some usable upstream has itself finalized `number`. */
  hasFinalized(number: number): boolean {
    return this.upstreams.some((u) => u.available && u.finalizedNumber >= number);
  }

  private pick(exclude: Set<Upstream>, minFinalized: number, usable: (u: Upstream) => boolean = () => true, client?: string): Upstream | undefined {
    const candidates = this.upstreams.filter((u) => u.available && !exclude.has(u) && u.finalizedNumber >= minFinalized && usable(u));
    if (candidates.length <= 1) return candidates[0];
    if (this.options.balance === 'hash' && client !== undefined) {
      return rendezvousPick(
        client,
        candidates,
        (u) => u.url,
        (u) => u.weight,
      );
    }
    const a = candidates[Math.floor(Math.random() * candidates.length)];
    let b = candidates[Math.floor(Math.random() * (candidates.length - 1))];
    if (b === a) b = candidates[candidates.length - 1];
    return a.load <= b.load ? a : b;
  }

  /**
   * Sends to one upstream. A transport failure, an overloaded node or an answer
   * `judge` calls invalid is retried on another (calls that may be retried are
   * reads), and so is a null about a block named by its hash (`absent`: that node
   * may not have it yet); a JSON-RPC error from the node is the call's own and goes back as is,
   * and so does a timeout (another node would be as slow, and as busy after it).
   */
  async call(method: string, params: unknown[], options: PoolCallOptions): Promise<{ result: unknown; verdict: Verdict; upstream: Upstream }> {
    const tried = new Set<Upstream>();
    let lastError: Error = new NoUpstreamError('no node is available');
    // A node without the block asked about: its null is the answer unless another node has the block.
    let absent: { result: unknown; upstream: Upstream } | undefined;
    for (let attempt = 0; attempt <= (options.retry ? this.options.retries : 0); attempt++) {
      const upstream = this.pick(tried, options.minFinalized ?? -1, options.usable, options.client);
      if (!upstream) break;
      tried.add(upstream);
      try {
        const result = await upstream.call(method, params, options.signal, options.caller);
        const verdict = options.judge(result);
        if (verdict === 'absent') {
          absent ??= { result, upstream };
          continue;
        }
        if (verdict !== 'invalid') return { result, verdict, upstream };
        upstream.answeredNonsense();
        lastError = new NoUpstreamError(`no node gave a valid answer to ${method}`);
      } catch (error) {
        if (error instanceof NodeTimeoutError || error instanceof AbandonedCallError) throw error;
        if (error instanceof RpcError && !OVERLOADED.has(error.code) && !/overload|too many|rate/i.test(error.message)) throw error;
        lastError = error instanceof RpcError ? error : new NoUpstreamError(`no node could answer: ${(error as Error).message ?? String(error)}`);
      }
    }
    if (absent) return { ...absent, verdict: 'serve' };
    throw lastError;
  }

  /** Whether any upstream can hold subscriptions (not when all are HTTP). */
  get supportsSubscriptions(): boolean {
    return this.upstreams.some((u) => u.supportsSubscriptions);
  }

  /** An upstream to hold a subscription (a chainHead follow, if `follow`) on: an available one with room for it, chosen as calls are. */
  subscriptionUpstream(client?: string, follow = false): Upstream | undefined {
    return this.pick(new Set(), -1, (u) => u.hasSubscriptionRoom(follow), client);
  }

  /**
   * The upstreams become those of `urls`: one still named is kept as it is (its
   * connections and calls in flight), a new one is opened and probed, and one no
   * longer named takes nothing new once the new ones are up (or `readyMs` has
   * passed) and is closed when its calls in flight and its subscriptions are done,
   * or after `drainMs`. Refused (NoUpstreamError, nothing changed) when none of the
   * nodes named is connected by then. The list changes in place: the metrics and
   * the tip tracker read this very array.
   */
  /** Each named upstream's weight in `hash` mode (a reload): `weights[i]` for `urls[i]`, 1 without weights. */
  setWeights(urls: string[], weights: number[]): void {
    for (const upstream of this.upstreams) {
      const i = urls.indexOf(upstream.url);
      upstream.weight = i >= 0 ? (weights[i] ?? 1) : 1;
    }
  }

  async setUpstreams(urls: string[], readyMs: number, drainMs: number): Promise<{ added: string[]; removed: string[] }> {
    const named = new Set(urls);
    const kept = this.upstreams.filter((upstream) => named.has(upstream.url));
    const known = new Set(kept.map((upstream) => upstream.url));
    const added = [...named].filter((url) => !known.has(url)).map((url) => new Upstream(url, this.options));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise((resolve) => (timer = setTimeout(resolve, readyMs)));
    await Promise.race([Promise.all(added.map((upstream) => upstream.ready.then(() => upstream.checkHealth()).catch(() => undefined))), waited]).finally(() =>
      clearTimeout(timer),
    );
    if (![...kept, ...added].some((upstream) => upstream.connected)) {
      await Promise.all(added.map((upstream) => upstream.close()));
      throw new NoUpstreamError(`none of the upstreams named could be reached within ${readyMs} ms`);
    }
    const removed = this.upstreams.filter((upstream) => !named.has(upstream.url));
    this.upstreams.splice(0, this.upstreams.length, ...kept, ...added);
    for (const upstream of removed) {
      this.draining.add(upstream);
      void upstream
        .drained(drainMs)
        .then(() => upstream.close())
        .finally(() => this.draining.delete(upstream));
    }
    return { added: added.map((upstream) => upstream.url), removed: removed.map((upstream) => upstream.url) };
  }

  /** Whether some upstream is up by its own probes (what /health answers). */
  get up(): boolean {
    return this.upstreams.some((u) => u.up);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.upstreams, ...this.draining].map((upstream) => upstream.close()));
  }
}
