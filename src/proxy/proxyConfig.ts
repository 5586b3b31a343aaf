// Proxy configuration: the defaults, an optional JSON file (`--config FILE`) over
// them, then the environment over both. Each setting is declared once, in SETTINGS,
// with the table fastcar's own settings use (src/settings.ts); values from the file
// are held to the same checks as those from the environment.
import { readFileSync } from 'node:fs';

import { BURST_WINDOWS, parseMethodRates } from '../limits/rates';
import {
  ConfigError,
  count,
  defaultsOf,
  helpOf,
  HTTP_NODE_LIMITS,
  optionalText,
  pick,
  readTable,
  splitList,
  text,
  variablesOf,
  type Env,
  type Setting,
  type Table,
} from '../settings';
import type { BalanceMode } from './upstreamPool';

/** What one client may take of the proxy. */
export interface ProxyLimits {
  /** Calls in one batch; a larger batch is refused whole. */
  maxBatchSize: number;
  /** Calls of one connection in flight at once. */
  maxInFlightPerConnection: number;
  /** Messages of one WebSocket waiting to start before the proxy stops reading it. */
  maxQueuedPerConnection: number;
  maxSubscriptionsPerConnection: number;
  maxConnections: number;
  /** Time for an HTTP client to send its headers, and its whole request. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** UTF-8 bytes of one call's answer, and of one batch's answers together; past them a call gets -32008. */
  maxAnswerBytes: number;
  maxBatchAnswerBytes: number;
  /** Answer bytes waiting to go out to one connection before its calls wait and it is not read. */
  maxUnsentBytesPerConnection: number;
  /** A connection whose waiting answers make no progress this long is closed. */
  sendTimeoutMs: number;
  /** WebSocket pings; a socket that has not answered the last one when the next is due is closed. */
  pingIntervalMs: number;
  /** A WebSocket that sends nothing and holds no subscription this long is closed. */
  idleTimeoutMs: number;
  /** Connections of one client address (TCP, or WebSockets behind trusted balancers). */
  maxConnectionsPerClient: number;
  /** Balancers in front that append X-Forwarded-For: the client address is read from it. */
  trustedProxies: number;
  /** Calls of one client address in flight, over all its connections (those whose client left included, until the node is done). */
  maxInFlightPerClient: number;
  /** Subscriptions of one client address, over all its connections. */
  maxSubscriptionsPerClient: number;
}

/** Rate limits per client address (src/limits), counted in Redis when redisUrl is set. */
export interface ProxyRateLimits {
  /** Redis for the counters, shared by every proxy using it; unset: each proxy counts on its own. */
  redisUrl?: string;
  /** Calls of one client address per window; 0: no limit on all calls together. */
  rateLimit: number;
  rateLimitWindowSeconds: number;
  /** Calls of an address beyond its rate, at most this many in BURST_WINDOWS windows. */
  rateLimitBurst: number;
  /** `method=calls[+burst]`, comma-separated: calls of one address to that method (or `prefix_*`) per window. */
  rateLimitMethods: string;
}

export interface ProxyConfig extends ProxyLimits, ProxyRateLimits {
  upstreams: string[];
  host: string;
  port: number;
  cacheMaxBytes: number;
  /** Answers to reads of "latest" state kept for the tip the proxy follows; 0: such reads go to a node as they are. */
  tipCacheMaxBytes: number;
  /** An upstream a reload removed is closed once its calls and subscriptions are done, or after this. */
  drainTimeoutMs: number;
  maxBodyBytes: number;
  maxConcurrentPerUpstream: number;
  /** Subscriptions one connection to a node holds before another connection is opened (a node allows 1024). */
  maxSubscriptionsPerUpstreamConnection: number;
  /** Connections to one node for subscriptions, the first (which also carries calls) included. */
  maxUpstreamConnections: number;
  timeoutMs: number;
  retries: number;
  maxLagBlocks: number;
  healthIntervalMs: number;
  /** An http(s):// upstream (a hosted provider): calls in one batch POST, POSTs in flight, POSTs per second (0: no limit of our own). */
  httpMaxBatch: number;
  httpMaxInFlight: number;
  httpRatePerSecond: number;
  logLevel: string;
  /** Methods let through beyond the safe defaults: exact names or `prefix_*`. */
  allowMethods: string[];
  /** Methods refused even if safe by default. */
  denyMethods: string[];
  /** How a client's calls are placed on the nodes: power of two choices, or rendezvous hashing of its address. */
  balance: BalanceMode;
  /** Each upstream's share of clients in `hash` mode, in the order of `upstreams`; empty: 1 each. */
  upstreamWeights: number[];
  /** chainHead follows held on one connection to a node (Substrate allows 4). */
  maxFollowsPerUpstreamConnection: number;
}

const UPSTREAM_URL = /^(wss?|https?):\/\//;

/** Comma-separated method names or prefixes; set empty, it clears the config file's list. */
function methodList(names: readonly string[], help: string): Setting<string[]> {
  return {
    names,
    fallback: [],
    help,
    read: (env, base) => (env[names[0]] === undefined ? base : splitList(env[names[0]]!)),
    check(list, key) {
      if (!Array.isArray(list) || !list.every((item) => typeof item === 'string' && /^[A-Za-z0-9_]+\*?$/.test(item))) {
        throw new ConfigError(`${key} must be a list of method names, each optionally ending in * (e.g. dev_*)`);
      }
    },
  };
}

/** `state_call=20+40,archive_*=5`, checked as the limits will read it, wherever it came from. */
function methodRates(names: readonly string[], help: string): Setting<string> {
  return {
    names,
    fallback: '',
    help,
    read(env, base) {
      const raw = env[names[0]];
      if (raw === undefined) return base;
      parseMethodRates(raw, names[0]); // refused here under the variable's own name
      return raw;
    },
    check(spec, key) {
      if (typeof spec !== 'string') throw new ConfigError(`${key} must be a string such as "state_call=20+40,archive_*=5"`);
      parseMethodRates(spec, key);
    },
  };
}

const AT_LEAST_ONE = { min: 1 };

const BALANCE_MODES: readonly BalanceMode[] = ['p2c', 'hash'];

const balanceMode: Setting<BalanceMode> = {
  names: ['PROXY_BALANCE'],
  fallback: 'p2c',
  help: 'how calls are placed on the nodes: p2c (power of two choices on calls in flight) or hash (by client address, weighted; default p2c)',
  read: (env, base) => (pick(env, ['PROXY_BALANCE']) as BalanceMode | undefined) ?? base,
  check(mode, key) {
    if (!BALANCE_MODES.includes(mode)) throw new ConfigError(`${key} must be one of ${BALANCE_MODES.join(', ')}`);
  },
};

/** The most one node may weigh against another: past it a node would take (almost) every client anyway. */
const MAX_WEIGHT = 1000;

const upstreamWeights: Setting<number[]> = {
  names: ['PROXY_UPSTREAM_WEIGHTS'],
  fallback: [],
  help: 'hash mode: comma-separated weights, one per upstream in order (a node of weight 2 takes twice the clients; default 1 each)',
  read: (env, base) => {
    const raw = pick(env, ['PROXY_UPSTREAM_WEIGHTS']);
    return raw === undefined ? base : splitList(raw).map(Number);
  },
  check(weights, key) {
    if (!Array.isArray(weights) || !weights.every((weight) => typeof weight === 'number' && weight > 0 && weight <= MAX_WEIGHT)) {
      throw new ConfigError(`${key} must be a list of numbers above 0 and at most ${MAX_WEIGHT}`);
    }
  },
};

const SETTINGS: Table<ProxyConfig> = {
  upstreams: {
    names: ['PROXY_UPSTREAMS'],
    help: 'comma-separated ws(s):// or http(s):// URLs of the nodes (required)',
    fallback: [],
    read: (env, base) => {
      const raw = pick(env, ['PROXY_UPSTREAMS']);
      return raw === undefined ? base : splitList(raw);
    },
    check(upstreams) {
      if (upstreams.length === 0) throw new ConfigError('the proxy needs upstream nodes: set PROXY_UPSTREAMS=ws://node-a:9944,ws://node-b:9944');
      for (const url of upstreams) {
        if (!UPSTREAM_URL.test(url)) throw new ConfigError(`upstream ${url} must be a ws://, wss://, http:// or https:// URL`);
      }
    },
  },
  host: text(['PROXY_HOST'], '127.0.0.1', 'bind address'),
  port: count(['PROXY_PORT'], 9955, 'port of WebSocket and HTTP POST, /health and /metrics'),
  cacheMaxBytes: count(['PROXY_CACHE_MAX_BYTES'], 512 * 1024 * 1024, 'cache bound, counted as the memory its entries take'),
  tipCacheMaxBytes: count(
    ['PROXY_TIP_CACHE_MAX_BYTES'],
    64 * 1024 * 1024,
    'bound of the answers to reads of "latest" state kept for the best block, emptied when it moves',
    {},
    '0: such reads not kept',
  ),
  drainTimeoutMs: count(['PROXY_DRAIN_TIMEOUT_MS'], 60_000, 'an upstream a reload removed is closed when its calls are done, or after this'),
  maxConcurrentPerUpstream: count(['PROXY_MAX_CONCURRENT'], 256, 'calls in flight per upstream'),
  timeoutMs: count(['PROXY_TIMEOUT_MS'], 30_000, 'per call; past it the call gets -32091'),
  retries: count(['PROXY_RETRIES'], 2, 'a call that failed for its connection is sent again, to another upstream, this many times'),
  maxLagBlocks: count(['PROXY_MAX_LAG_BLOCKS'], 10, 'how far behind the best node a node may serve'),
  healthIntervalMs: count(['PROXY_HEALTH_INTERVAL_MS'], 2_000, 'how often upstreams are checked'),
  httpMaxBatch: count(['PROXY_HTTP_MAX_BATCH'], HTTP_NODE_LIMITS.maxBatch, 'http(s) upstream: calls in one batch POST', AT_LEAST_ONE),
  httpMaxInFlight: count(
    ['PROXY_HTTP_MAX_IN_FLIGHT'],
    HTTP_NODE_LIMITS.maxInFlight,
    'http(s) upstream: POSTs in flight, lowered when the provider answers 429',
    AT_LEAST_ONE,
  ),
  httpRatePerSecond: count(['PROXY_HTTP_RATE_PER_SECOND'], 0, 'http(s) upstream: POSTs per second', {}, '0: none'),
  maxBodyBytes: count(['PROXY_MAX_BODY_BYTES'], 16 * 1024 * 1024, 'largest HTTP body or WebSocket message'),
  logLevel: text(['PROXY_LOG_LEVEL'], 'info', 'as FASTCAR_LOG_LEVEL'),
  allowMethods: methodList(['PROXY_ALLOW_METHODS'], 'methods let through beyond the safe defaults, comma-separated names or prefixes (dev_*)'),
  denyMethods: methodList(['PROXY_DENY_METHODS'], 'methods refused, even safe ones'),
  maxBatchSize: count(['PROXY_MAX_BATCH_SIZE'], 256, 'calls in one batch; a larger one is refused whole', AT_LEAST_ONE),
  maxInFlightPerConnection: count(['PROXY_MAX_IN_FLIGHT_PER_CONNECTION'], 32, 'calls of one connection in flight', AT_LEAST_ONE),
  maxQueuedPerConnection: count(
    ['PROXY_MAX_QUEUED_PER_CONNECTION'],
    1024,
    'messages of one WebSocket waiting before it is no longer read (HTTP requests in progress of one address, before 429)',
    AT_LEAST_ONE,
  ),
  maxSubscriptionsPerConnection: count(['PROXY_MAX_SUBSCRIPTIONS_PER_CONNECTION'], 1024, 'subscriptions of one WebSocket', AT_LEAST_ONE),
  maxConnections: count(['PROXY_MAX_CONNECTIONS'], 4096, 'connections open at once', AT_LEAST_ONE),
  headersTimeoutMs: count(['PROXY_HEADERS_TIMEOUT_MS'], 10_000, "slow HTTP clients: a client's request headers must arrive within this", AT_LEAST_ONE),
  requestTimeoutMs: count(['PROXY_REQUEST_TIMEOUT_MS'], 30_000, 'and its whole request within this', AT_LEAST_ONE),
  // A block's answer can be ~10 MB (the node's own cap is 15 MB); this devnet's metadata is 1.2 MB.
  maxAnswerBytes: count(['PROXY_MAX_ANSWER_BYTES'], 16 * 1024 * 1024, "one call's answer; past it -32008", AT_LEAST_ONE),
  maxBatchAnswerBytes: count(['PROXY_MAX_BATCH_ANSWER_BYTES'], 32 * 1024 * 1024, "a batch's answers together; calls past it -32008", AT_LEAST_ONE),
  maxUnsentBytesPerConnection: count(
    ['PROXY_MAX_UNSENT_BYTES_PER_CONNECTION'],
    4 * 1024 * 1024,
    'answer bytes waiting for a WebSocket client to read them before its calls wait and it is not read',
    AT_LEAST_ONE,
  ),
  sendTimeoutMs: count(['PROXY_SEND_TIMEOUT_MS'], 30_000, 'a client that takes none of its waiting answers this long is disconnected', AT_LEAST_ONE),
  pingIntervalMs: count(['PROXY_PING_INTERVAL_MS'], 30_000, 'WebSocket pings; no pong to the last one: closed', AT_LEAST_ONE),
  idleTimeoutMs: count(['PROXY_IDLE_TIMEOUT_MS'], 300_000, 'a WebSocket that sends nothing and holds no subscription this long is closed', AT_LEAST_ONE),
  maxConnectionsPerClient: count(['PROXY_MAX_CONNECTIONS_PER_CLIENT'], 64, 'connections of one client address', AT_LEAST_ONE),
  trustedProxies: count(['PROXY_TRUSTED_PROXIES'], 0, 'balancers in front that append X-Forwarded-For; client addresses are read from it', { min: 0, max: 10 }),
  maxInFlightPerClient: count(
    ['PROXY_MAX_IN_FLIGHT_PER_CLIENT'],
    64,
    'calls of one address at the nodes, counted until the node is done with them',
    AT_LEAST_ONE,
  ),
  maxSubscriptionsPerClient: count(['PROXY_MAX_SUBSCRIPTIONS_PER_CLIENT'], 1024, 'subscriptions of one client address', AT_LEAST_ONE),
  maxSubscriptionsPerUpstreamConnection: count(
    ['PROXY_MAX_SUBSCRIPTIONS_PER_UPSTREAM_CONNECTION'],
    1024,
    'subscriptions on one connection to a node before another connection is opened',
    AT_LEAST_ONE,
    "a node's own limit",
  ),
  maxUpstreamConnections: count(['PROXY_MAX_UPSTREAM_CONNECTIONS'], 8, 'connections to each node', AT_LEAST_ONE),
  redisUrl: {
    ...optionalText(['PROXY_REDIS_URL'], 'Redis for the rate-limit counters, so that every proxy using it enforces one limit; unset: each counts alone'),
    check(url, key) {
      if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) throw new ConfigError(`${key} must be a redis:// or rediss:// URL`);
    },
  },
  rateLimit: count(['PROXY_RATE_LIMIT'], 0, 'calls of one client address per window; beyond: -32005 with a retry hint (HTTP: 429)', { min: 0 }, '0: off'),
  rateLimitWindowSeconds: count(['PROXY_RATE_LIMIT_WINDOW_SECONDS'], 1, 'the window rate limits count in', { min: 1, max: 3600 }),
  rateLimitBurst: count(['PROXY_RATE_LIMIT_BURST'], 0, `calls of an address beyond its rate, at most this many every ${BURST_WINDOWS} windows`, { min: 0 }),
  rateLimitMethods: methodRates(
    ['PROXY_RATE_LIMIT_METHODS'],
    'costly methods limited per address on their own, calls per window (+burst): state_call=20+40,state_getKeysPaged=20,archive_*=5 (default none)',
  ),
  balance: balanceMode,
  upstreamWeights,
  maxFollowsPerUpstreamConnection: count(
    ['PROXY_MAX_FOLLOWS_PER_UPSTREAM_CONNECTION'],
    4,
    "chainHead_v1_follow subscriptions on one connection to a node (a node's own limit)",
    AT_LEAST_ONE,
  ),
};

/** Rules between settings: a weight for each upstream, or none. */
function checkTogether(config: ProxyConfig): ProxyConfig {
  const { upstreamWeights: weights, upstreams } = config;
  if (weights.length > 0 && weights.length !== upstreams.length) {
    throw new ConfigError(`upstreamWeights lists ${weights.length} weights for ${upstreams.length} upstreams: give one for each, in the same order`);
  }
  return config;
}

/** The defaults with the given upstreams: for code that starts a proxy itself (tests, benchmarks). */
export function proxyConfigFor(upstreams: string[], overrides: Partial<ProxyConfig> = {}): ProxyConfig {
  return { ...defaultsOf(SETTINGS), upstreams, ...overrides };
}

/** Every variable loadProxyConfig reads; deployment files are checked against this list. */
export const PROXY_VARIABLES: readonly string[] = variablesOf(SETTINGS);

/** The proxy's lines of `--help` (src/config.ts prints them after fastcar's). */
export const PROXY_HELP = helpOf(SETTINGS);

/** The config file's values held to their defaults' types: a misspelt key or a number in quotes is refused, not left unused. */
function checkFileValues(file: unknown, path: string, defaults: ProxyConfig): asserts file is Partial<ProxyConfig> {
  if (typeof file !== 'object' || file === null || Array.isArray(file)) throw new ConfigError(`proxy config ${path} must be a JSON object`);
  for (const [key, value] of Object.entries(file)) {
    if (!Object.hasOwn(defaults, key)) throw new ConfigError(`proxy config ${path}: unknown setting ${key.slice(0, 64)}`);
    // An optional setting (no default) is text, checked as the environment's is when the table reads it.
    const fallback = defaults[key as keyof ProxyConfig] ?? '';
    const fits = Array.isArray(fallback)
      ? Array.isArray(value)
      : typeof fallback === 'number'
        ? Number.isSafeInteger(value) && (value as number) >= 0
        : typeof value === typeof fallback;
    if (!fits)
      throw new ConfigError(
        `proxy config ${path}: ${key} must be ${Array.isArray(fallback) ? 'a list' : typeof fallback === 'number' ? 'a whole number' : `a ${typeof fallback}`}`,
      );
  }
}

export function loadProxyConfig(argv: string[], env: Env = process.env): ProxyConfig {
  const base = defaultsOf(SETTINGS);
  const path = configPath(argv);
  if (path !== undefined) {
    let file: unknown;
    try {
      file = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new ConfigError(`proxy config ${path} cannot be read as JSON: ${(error as Error).message}`);
    }
    checkFileValues(file, path, base);
    Object.assign(base, file);
  }
  return checkTogether(readTable(SETTINGS, env, base));
}

/** The file named by `--config`, if any. */
export function configPath(argv: string[]): string | undefined {
  const at = argv.indexOf('--config');
  return at >= 0 ? argv[at + 1] : undefined;
}
