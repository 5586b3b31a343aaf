// A new configuration taken on while the proxy runs (SIGHUP): its upstreams,
// limits, method lists and cache bounds, without dropping a client. An upstream
// still named keeps its connections, a new one is opened, one no longer named
// takes nothing new (once the new ones answer) and is closed when what it holds
// is done (upstreamPool.ts). A configuration that does not load (unreadable JSON, a
// misspelt key, a value its check refuses) or none of whose nodes can be reached
// is refused whole with a log line, and the running one stays.
//
// A few settings are read once at start (the port the proxy listens on, the
// server's own timeouts, how a node's connection is set up): a reload that
// changes them says so in the log and keeps the running values.
import { urlForLogs, type Logger } from '../logger';
import type { ProxyConfig } from './proxyConfig';
import type { RpcProxy } from './proxyServer';
import type { PoolOptions, UpstreamPool } from './upstreamPool';

/** Settings taken only at start: a reload keeps their running values. */
export const RESTART_ONLY = [
  'host',
  'port',
  'maxBodyBytes',
  'maxConnections',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'pingIntervalMs',
  'trustedProxies',
  'logLevel',
  'maxConcurrentPerUpstream',
  'healthIntervalMs',
  'httpMaxBatch',
  'httpMaxInFlight',
  'httpRatePerSecond',
  // The limiter (and its Redis) is made once at start.
  'redisUrl',
  'rateLimit',
  'rateLimitWindowSeconds',
  'rateLimitBurst',
  'rateLimitMethods',
] as const satisfies readonly (keyof ProxyConfig)[];

export interface ReloadTarget {
  proxy: RpcProxy;
  pool: UpstreamPool;
  /** The options the pool and its upstreams read on every call (the same object): timeouts, retries, lag, subscription room. */
  poolOptions: PoolOptions;
}

export type ReloadOutcome = { applied: true; added: string[]; removed: string[]; keptAsRunning: string[] } | { applied: false; reason: string };

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class ProxyReloader {
  /** Reloads one at a time: a second SIGHUP waits for the first. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private running: ProxyConfig,
    private readonly target: ReloadTarget,
    private readonly logger: Logger,
  ) {}

  get config(): ProxyConfig {
    return this.running;
  }

  /** Loads the configuration again with `load` and applies it, or refuses it and keeps the running one. */
  reload(load: () => ProxyConfig): Promise<ReloadOutcome> {
    const outcome = this.turn.then(() => this.apply(load)).catch((error: unknown) => this.refuse(error));
    this.turn = outcome.catch(() => undefined);
    return outcome;
  }

  private refuse(error: unknown): ReloadOutcome {
    const reason = (error as Error)?.message ?? String(error);
    this.logger.error({ reason }, 'proxy config refused: the running one stays');
    this.logger.flush();
    return { applied: false, reason };
  }

  private async apply(load: () => ProxyConfig): Promise<ReloadOutcome> {
    let loaded: ProxyConfig;
    try {
      loaded = load();
    } catch (error) {
      return this.refuse(error);
    }
    const keptAsRunning = RESTART_ONLY.filter((key) => !same(loaded[key], this.running[key]));
    const next: ProxyConfig = { ...loaded };
    for (const key of keptAsRunning) (next as unknown as Record<string, unknown>)[key] = this.running[key];
    const { proxy, pool, poolOptions } = this.target;
    let changed: { added: string[]; removed: string[] };
    try {
      // The nodes first: calls go on to the running ones until the new ones answer.
      changed = await pool.setUpstreams(next.upstreams, next.timeoutMs, next.drainTimeoutMs);
    } catch (error) {
      return this.refuse(error);
    }
    const { added, removed } = changed;
    Object.assign(poolOptions, {
      timeoutMs: next.timeoutMs,
      retries: next.retries,
      maxLagBlocks: next.maxLagBlocks,
      maxSubscriptionsPerConnection: next.maxSubscriptionsPerUpstreamConnection,
      maxConnections: next.maxUpstreamConnections,
      balance: next.balance,
      weights: next.upstreamWeights,
      maxFollowsPerConnection: next.maxFollowsPerUpstreamConnection,
    });
    pool.setWeights(next.upstreams, next.upstreamWeights);
    proxy.reconfigure({ ...next, methods: { allow: next.allowMethods, deny: next.denyMethods } });
    this.running = next;
    if (keptAsRunning.length > 0) this.logger.warn({ settings: keptAsRunning }, 'proxy config: these settings change on a restart only; running values kept');
    this.logger.info({ upstreams: next.upstreams.map(urlForLogs), added: added.map(urlForLogs), removed: removed.map(urlForLogs) }, 'proxy config reloaded');
    // An operator who sent the signal looks for the answer now, not when the log's buffer fills.
    this.logger.flush();
    return { applied: true, added, removed, keptAsRunning };
  }
}
