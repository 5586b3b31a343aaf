// The proxy's upstream nodes: each a reconnecting WebSocket with a cap on
// calls in flight; a pool that picks between them by power of two choices on
// the fewest outstanding calls, skips nodes that are down, behind or backing
// off, and retries a failed call on another node.
import { WsProvider } from '@polkadot/rpc-provider';

import type { Verdict } from './resultShapes';

/** The node answered the call with a JSON-RPC error: the call's fault, passed back as it is. */
export class UpstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** No upstream could give a usable answer: none available, all failed, or all answered nonsense. */
export class NoUpstreamError extends Error {}

/** A polkadot.js provider error as what it is: the node's own JSON-RPC error, or a transport failure. */
export function asUpstreamError(error: unknown): UpstreamRpcError | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'number' || code === -1 || code === 1006) return undefined;
  return new UpstreamRpcError(code, String((error as Error).message ?? '').replace(/^-?\d+: /, ''), (error as { data?: unknown }).data);
}

/** jsonrpsee's "server is busy" and "too many subscriptions", Subway's limits, HTTP's 429. */
const OVERLOADED = new Set([-32009, -32097, -32098, 429]);

interface RpcHeaderLike {
  number: string;
}

export interface UpstreamOptions {
  maxConcurrent: number;
  timeoutMs: number;
}

export class Upstream {
  private readonly provider: WsProvider;
  outstanding = 0;
  bestNumber = -1;
  finalizedNumber = -1;
  healthy = true;
  calls = 0;
  errors = 0;
  private backoffUntil = 0;
  private backoffMs = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly url: string,
    private readonly options: UpstreamOptions,
  ) {
    this.provider = new WsProvider(url, 1000, {}, options.timeoutMs);
    this.provider.on('error', () => undefined);
  }

  get available(): boolean {
    return this.connected && this.healthy && Date.now() >= this.backoffUntil;
  }

  /** Fewer is better; queued calls count as outstanding. */
  get load(): number {
    return this.outstanding + this.waiting.length;
  }

  async call(method: string, params: unknown[]): Promise<unknown> {
    if (this.outstanding >= this.options.maxConcurrent) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.outstanding += 1;
    this.calls += 1;
    try {
      const result = await this.provider.send(method, params);
      this.backoffMs = 0;
      return result;
    } catch (error) {
      const answered = asUpstreamError(error);
      if (answered) {
        // The node answered: the call itself is at fault, or the node says it is overloaded.
        if (OVERLOADED.has(answered.code)) this.backOff();
        throw answered;
      }
      this.errors += 1;
      this.backOff();
      throw error;
    } finally {
      this.outstanding -= 1;
      this.waiting.shift()?.();
    }
  }

  private backOff() {
    this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 250), 10_000);
    this.backoffUntil = Date.now() + this.backoffMs;
  }

  /** Whether the socket to the node is open. */
  get connected(): boolean {
    return this.provider.isConnected;
  }

  /** Resolves once the first connection is open. */
  get ready(): Promise<unknown> {
    return this.provider.isReady;
  }

  /**
   * Subscribes at this node; a JSON-RPC error from it comes back as UpstreamRpcError.
   * Resolves to the function that ends the subscription.
   */
  async subscribe(notification: string, method: string, unsubscribeMethod: string, params: unknown[], onValue: (value: unknown) => void): Promise<() => Promise<void>> {
    let id: string | number;
    try {
      id = await this.provider.subscribe(notification, method, params, (error: Error | null, value: unknown) => {
        if (!error) onValue(value);
      });
    } catch (error) {
      throw asUpstreamError(error) ?? error;
    }
    return async () => {
      await this.provider.unsubscribe(notification, unsubscribeMethod, id).catch(() => undefined);
    };
  }

  /** Counts an answer that was not an answer to the call (the call goes to another node). */
  answeredNonsense(): void {
    this.errors += 1;
  }

  async checkHealth(): Promise<void> {
    try {
      const [best, finalizedHash] = (await Promise.all([
        this.provider.send('chain_getHeader', []),
        this.provider.send('chain_getFinalizedHead', []),
      ])) as [RpcHeaderLike, string];
      const finalized = (await this.provider.send('chain_getHeader', [finalizedHash])) as RpcHeaderLike;
      this.bestNumber = parseInt(best.number, 16);
      this.finalizedNumber = parseInt(finalized.number, 16);
      this.healthy = true;
    } catch {
      this.healthy = false;
    }
  }

  async close(): Promise<void> {
    await this.provider.disconnect().catch(() => undefined);
  }
}

export interface PoolOptions extends UpstreamOptions {
  /** How many blocks behind the best upstream a node may be and still serve. */
  maxLagBlocks: number;
  healthIntervalMs: number;
  retries: number;
}

export interface CallOptions {
  retry: boolean;
  /** Only upstreams that have themselves finalized this height may answer. */
  minFinalized?: number;
  /** Sorts an answer; an `invalid` one counts as that upstream's failure. */
  judge: (result: unknown) => Verdict;
}

export class UpstreamPool {
  readonly upstreams: Upstream[];
  private timer?: NodeJS.Timeout;

  constructor(
    urls: string[],
    private readonly options: PoolOptions,
  ) {
    if (urls.length === 0) throw new Error('the proxy needs at least one upstream URL');
    this.upstreams = urls.map((url) => new Upstream(url, options));
  }

  async start(): Promise<void> {
    await Promise.race(this.upstreams.map((upstream) => upstream.ready));
    await this.checkHealth();
    this.timer = setInterval(() => void this.checkHealth(), this.options.healthIntervalMs);
    this.timer.unref();
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

  private pick(exclude: Set<Upstream>, minFinalized: number): Upstream | undefined {
    const candidates = this.upstreams.filter((u) => u.available && !exclude.has(u) && u.finalizedNumber >= minFinalized);
    if (candidates.length <= 1) return candidates[0];
    const a = candidates[Math.floor(Math.random() * candidates.length)];
    let b = candidates[Math.floor(Math.random() * (candidates.length - 1))];
    if (b === a) b = candidates[candidates.length - 1];
    return a.load <= b.load ? a : b;
  }

  /**
   * Sends to one upstream. A transport failure, an overloaded node or an answer
   * `judge` calls invalid is retried on another (calls that may be retried are
   * reads); a JSON-RPC error from the node is the call's own and goes back as is.
   */
  async call(method: string, params: unknown[], options: CallOptions): Promise<{ result: unknown; verdict: Verdict }> {
    const tried = new Set<Upstream>();
    let lastError: Error = new NoUpstreamError('no node is available');
    for (let attempt = 0; attempt <= (options.retry ? this.options.retries : 0); attempt++) {
      const upstream = this.pick(tried, options.minFinalized ?? -1);
      if (!upstream) break;
      tried.add(upstream);
      try {
        const result = await upstream.call(method, params);
        const verdict = options.judge(result);
        if (verdict !== 'invalid') return { result, verdict };
        upstream.answeredNonsense();
        lastError = new NoUpstreamError(`no node gave a valid answer to ${method}`);
      } catch (error) {
        if (error instanceof UpstreamRpcError && !OVERLOADED.has(error.code) && !/overload|too many|rate/i.test(error.message)) throw error;
        lastError = error instanceof UpstreamRpcError ? error : new NoUpstreamError(`no node could answer: ${(error as Error).message ?? String(error)}`);
      }
    }
    throw lastError;
  }

  /** A provider to hold a subscription on: the least loaded available upstream. */
  subscriptionUpstream(): Upstream | undefined {
    return this.pick(new Set(), -1);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.upstreams.map((upstream) => upstream.close()));
  }
}
