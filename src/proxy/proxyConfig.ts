// Proxy configuration: an optional JSON file (`--config FILE`), then the
// environment on top of it.
import { readFileSync } from 'node:fs';

import { ConfigError } from '../config';

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

export interface ProxyConfig extends ProxyLimits {
  upstreams: string[];
  host: string;
  port: number;
  cacheMaxBytes: number;
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
}

const DEFAULTS: ProxyConfig = {
  upstreams: [],
  host: '127.0.0.1',
  port: 9955,
  cacheMaxBytes: 512 * 1024 * 1024,
  maxBodyBytes: 16 * 1024 * 1024,
  maxConcurrentPerUpstream: 256,
  maxSubscriptionsPerUpstreamConnection: 1024,
  maxUpstreamConnections: 8,
  timeoutMs: 30_000,
  retries: 2,
  maxLagBlocks: 10,
  healthIntervalMs: 2_000,
  // As fastcar's own for an http(s) node: within what hosted providers were measured to take.
  httpMaxBatch: 100,
  httpMaxInFlight: 20,
  httpRatePerSecond: 0,
  logLevel: 'info',
  maxBatchSize: 256,
  maxInFlightPerConnection: 32,
  maxQueuedPerConnection: 1024,
  maxSubscriptionsPerConnection: 1024,
  maxConnections: 4096,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // A block's answer can be ~10 MB (the node's own cap is 15 MB); this devnet's metadata is 1.2 MB.
  maxAnswerBytes: 16 * 1024 * 1024,
  maxBatchAnswerBytes: 32 * 1024 * 1024,
  maxUnsentBytesPerConnection: 4 * 1024 * 1024,
  sendTimeoutMs: 30_000,
  pingIntervalMs: 30_000,
  idleTimeoutMs: 300_000,
  maxConnectionsPerClient: 64,
  trustedProxies: 0,
  maxInFlightPerClient: 64,
  maxSubscriptionsPerClient: 1024,
  allowMethods: [],
  denyMethods: [],
};

/** The defaults with the given upstreams: for code that starts a proxy itself (tests, benchmarks). */
export function proxyConfigFor(upstreams: string[], overrides: Partial<ProxyConfig> = {}): ProxyConfig {
  return { ...DEFAULTS, upstreams, ...overrides };
}

const NUMBERS: [keyof ProxyConfig, string][] = [
  ['port', 'PROXY_PORT'],
  ['cacheMaxBytes', 'PROXY_CACHE_MAX_BYTES'],
  ['maxBodyBytes', 'PROXY_MAX_BODY_BYTES'],
  ['maxConcurrentPerUpstream', 'PROXY_MAX_CONCURRENT'],
  ['timeoutMs', 'PROXY_TIMEOUT_MS'],
  ['retries', 'PROXY_RETRIES'],
  ['maxLagBlocks', 'PROXY_MAX_LAG_BLOCKS'],
  ['healthIntervalMs', 'PROXY_HEALTH_INTERVAL_MS'],
  ['httpMaxBatch', 'PROXY_HTTP_MAX_BATCH'],
  ['httpMaxInFlight', 'PROXY_HTTP_MAX_IN_FLIGHT'],
  ['httpRatePerSecond', 'PROXY_HTTP_RATE_PER_SECOND'],
  ['maxBatchSize', 'PROXY_MAX_BATCH_SIZE'],
  ['maxInFlightPerConnection', 'PROXY_MAX_IN_FLIGHT_PER_CONNECTION'],
  ['maxQueuedPerConnection', 'PROXY_MAX_QUEUED_PER_CONNECTION'],
  ['maxSubscriptionsPerConnection', 'PROXY_MAX_SUBSCRIPTIONS_PER_CONNECTION'],
  ['maxConnections', 'PROXY_MAX_CONNECTIONS'],
  ['headersTimeoutMs', 'PROXY_HEADERS_TIMEOUT_MS'],
  ['requestTimeoutMs', 'PROXY_REQUEST_TIMEOUT_MS'],
  ['maxAnswerBytes', 'PROXY_MAX_ANSWER_BYTES'],
  ['maxBatchAnswerBytes', 'PROXY_MAX_BATCH_ANSWER_BYTES'],
  ['maxUnsentBytesPerConnection', 'PROXY_MAX_UNSENT_BYTES_PER_CONNECTION'],
  ['sendTimeoutMs', 'PROXY_SEND_TIMEOUT_MS'],
  ['pingIntervalMs', 'PROXY_PING_INTERVAL_MS'],
  ['idleTimeoutMs', 'PROXY_IDLE_TIMEOUT_MS'],
  ['maxConnectionsPerClient', 'PROXY_MAX_CONNECTIONS_PER_CLIENT'],
  ['trustedProxies', 'PROXY_TRUSTED_PROXIES'],
  ['maxInFlightPerClient', 'PROXY_MAX_IN_FLIGHT_PER_CLIENT'],
  ['maxSubscriptionsPerClient', 'PROXY_MAX_SUBSCRIPTIONS_PER_CLIENT'],
  ['maxSubscriptionsPerUpstreamConnection', 'PROXY_MAX_SUBSCRIPTIONS_PER_UPSTREAM_CONNECTION'],
  ['maxUpstreamConnections', 'PROXY_MAX_UPSTREAM_CONNECTIONS'],
];
const LISTS: [keyof ProxyConfig, string][] = [
  ['allowMethods', 'PROXY_ALLOW_METHODS'],
  ['denyMethods', 'PROXY_DENY_METHODS'],
];

const AT_LEAST_ONE = [
  'maxBatchSize', 'maxInFlightPerConnection', 'maxQueuedPerConnection', 'maxSubscriptionsPerConnection', 'maxConnections', 'headersTimeoutMs',
  'requestTimeoutMs', 'maxAnswerBytes', 'maxBatchAnswerBytes', 'maxUnsentBytesPerConnection', 'sendTimeoutMs', 'pingIntervalMs', 'idleTimeoutMs',
  'maxConnectionsPerClient', 'maxInFlightPerClient', 'maxSubscriptionsPerClient', 'maxSubscriptionsPerUpstreamConnection', 'maxUpstreamConnections',
  'httpMaxBatch', 'httpMaxInFlight',
] as const;

/** Every variable loadProxyConfig reads; deployment files are checked against this list. */
export const PROXY_VARIABLES = ['PROXY_UPSTREAMS', 'PROXY_HOST', 'PROXY_LOG_LEVEL', ...NUMBERS.map(([, name]) => name), ...LISTS.map(([, name]) => name)];

const splitList = (raw: string) => raw.split(',').map((item) => item.trim()).filter(Boolean);

export function loadProxyConfig(argv: string[], env: Record<string, string | undefined> = process.env): ProxyConfig {
  const config: ProxyConfig = { ...DEFAULTS };
  const fileIndex = argv.indexOf('--config');
  if (fileIndex >= 0) {
    const path = argv[fileIndex + 1];
    let file: Partial<ProxyConfig>;
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as Partial<ProxyConfig>;
    } catch (error) {
      throw new ConfigError(`proxy config ${path} cannot be read as JSON: ${(error as Error).message}`);
    }
    Object.assign(config, file);
  }
  if (env.PROXY_UPSTREAMS) config.upstreams = splitList(env.PROXY_UPSTREAMS);
  for (const [key, name] of LISTS) {
    const raw = env[name];
    if (raw !== undefined) (config as unknown as Record<string, string[]>)[key] = splitList(raw);
  }
  if (env.PROXY_HOST) config.host = env.PROXY_HOST;
  if (env.PROXY_LOG_LEVEL) config.logLevel = env.PROXY_LOG_LEVEL;
  for (const [key, name] of NUMBERS) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name}=${raw} is not valid: use a whole number`);
    (config as unknown as Record<string, number>)[key] = value;
  }
  for (const [key] of LISTS) {
    const list = config[key];
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string' && /^[A-Za-z0-9_]+\*?$/.test(item))) {
      throw new ConfigError(`${key} must be a list of method names, each optionally ending in * (e.g. dev_*)`);
    }
  }
  for (const key of AT_LEAST_ONE) {
    if (!(config[key] >= 1)) throw new ConfigError(`${key} must be at least 1`);
  }
  if (!(config.trustedProxies >= 0 && config.trustedProxies <= 10)) throw new ConfigError('trustedProxies must be between 0 and 10');
  if (config.upstreams.length === 0) throw new ConfigError('the proxy needs upstream nodes: set PROXY_UPSTREAMS=ws://node-a:9944,ws://node-b:9944');
  for (const url of config.upstreams) {
    if (!/^(wss?|https?):\/\//.test(url)) throw new ConfigError(`upstream ${url} must be a ws://, wss://, http:// or https:// URL`);
  }
  return config;
}
