// Configuration from the environment. Sidecar's variable names are accepted
// so that a sidecar deployment can switch without renaming anything.
export interface Config {
  /** Node URL; undefined means "start the bundled devnet". */
  nodeUrl?: string;
  /** The relay chain's node, when the node above is a parachain's (Asset Hub): `/rc/...` and `useRcBlock`. */
  relayUrl?: string;
  host: string;
  port: number;
  logLevel: string;
  rpcTimeoutMs: number;
  cacheMaxBytes: number;
  redisUrl?: string;
  redisTtlSeconds: number;
  devnetPort: number;
  /** Server processes sharing the port (node:cluster); 1 runs in this process. */
  workers: number;
  /** Requests per second allowed from one client address; 0: no limit. */
  rateLimitPerIp: number;
  /** Proxies in front that append to X-Forwarded-For; 0: the peer address is the client. */
  trustedProxies: number;
  /** How many of the newest finalized blocks to build ahead of requests; 0: none. */
  prebuildBlocks: number;
  /** Reject query parameters a route does not use (sidecar ignores them). */
  strictParams: boolean;
  /** Over HTTP(S), how often the finalized head is polled (a WebSocket node pushes it). */
  finalizedPollMs: number;
  /** Over HTTP(S): calls in one JSON-RPC batch, requests in flight, requests per second (0: no limit), HTTP/2 offered. */
  rpcMaxBatch: number;
  rpcMaxInFlight: number;
  rpcRatePerSecond: number;
  rpcHttp2: boolean;
}

export class ConfigError extends Error {}

/** Every variable loadConfig reads; deployment files are checked against this list. */
export const CONFIG_VARIABLES = [
  'FASTCAR_NODE_URL', 'SAS_SUBSTRATE_URL', 'FASTCAR_HOST', 'SAS_EXPRESS_BIND_HOST', 'FASTCAR_PORT', 'SAS_EXPRESS_PORT',
  'FASTCAR_LOG_LEVEL', 'SAS_LOG_LEVEL', 'FASTCAR_RPC_TIMEOUT_MS', 'FASTCAR_CACHE_MAX_BYTES', 'REDIS_URL', 'FASTCAR_REDIS_URL',
  'FASTCAR_REDIS_TTL_SECONDS', 'DEVNET_PORT', 'WORKERS', 'FASTCAR_WORKERS',
  'FASTCAR_RATE_LIMIT_PER_IP', 'FASTCAR_TRUSTED_PROXIES', 'FASTCAR_PREBUILD_BLOCKS', 'FASTCAR_STRICT_PARAMS',
  'FASTCAR_RELAY_URL', 'SAS_SUBSTRATE_MULTI_CHAIN_URL',
  'FASTCAR_FINALIZED_POLL_MS', 'FASTCAR_RPC_MAX_BATCH', 'FASTCAR_RPC_MAX_IN_FLIGHT', 'FASTCAR_RPC_RATE_PER_SECOND', 'FASTCAR_RPC_HTTP2',
] as const;

/** The setting a relay-chain feature names when it is missing. */
export const RELAY_SETTING = 'FASTCAR_RELAY_URL (or SAS_SUBSTRATE_MULTI_CHAIN_URL with a chain of type "relay")';

const NODE_URL = /^(wss?|https?):\/\//;

/**
 * The relay node: FASTCAR_RELAY_URL, or sidecar's SAS_SUBSTRATE_MULTI_CHAIN_URL, a JSON
 * array of `{ url, type }` of which the entry of type "relay" is the one used here.
 */
function relayUrlOf(env: Env): string | undefined {
  const direct = pick(env, 'FASTCAR_RELAY_URL');
  const multi = pick(env, 'SAS_SUBSTRATE_MULTI_CHAIN_URL');
  let url = direct;
  if (url === undefined && multi !== undefined) {
    let chains: unknown;
    try {
      chains = JSON.parse(multi);
    } catch {
      throw new ConfigError('SAS_SUBSTRATE_MULTI_CHAIN_URL is not valid: use a JSON array such as [{"url":"ws://...","type":"relay"}]');
    }
    if (!Array.isArray(chains)) throw new ConfigError('SAS_SUBSTRATE_MULTI_CHAIN_URL is not valid: use a JSON array of {url, type}');
    const relay = chains.find((chain): chain is { url: string } => typeof chain === 'object' && chain !== null && (chain as { type?: unknown }).type === 'relay');
    url = relay && typeof relay.url === 'string' ? relay.url : undefined;
  }
  if (url !== undefined && !NODE_URL.test(url)) throw new ConfigError(`relay node URL ${url} must start with ws://, wss://, http:// or https://`);
  return url;
}

type Env = Record<string, string | undefined>;

function pick(env: Env, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

function integer(env: Env, names: string[], fallback: number, min: number, max: number): number {
  const raw = pick(env, ...names);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${names[0]}=${raw} is not valid: use a whole number from ${min} to ${max}`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = pick(env, name);
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name}=${raw} is not valid: use true or false`);
  return raw === 'true';
}

export function loadConfig(env: Env = process.env): Config {
  const nodeUrl = pick(env, 'FASTCAR_NODE_URL', 'SAS_SUBSTRATE_URL');
  if (nodeUrl !== undefined && !NODE_URL.test(nodeUrl)) {
    throw new ConfigError(`node URL ${nodeUrl} must start with ws://, wss://, http:// or https://`);
  }
  const logLevel = (pick(env, 'FASTCAR_LOG_LEVEL', 'SAS_LOG_LEVEL') ?? 'info').toLowerCase();
  // sidecar's winston levels map onto pino's
  const pinoLevel = { http: 'info', verbose: 'debug', silly: 'trace' }[logLevel] ?? logLevel;
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(pinoLevel)) {
    throw new ConfigError(`log level ${logLevel} is not one of error, warn, info, debug, trace, silent`);
  }
  return {
    nodeUrl,
    host: pick(env, 'FASTCAR_HOST', 'SAS_EXPRESS_BIND_HOST') ?? '127.0.0.1',
    port: integer(env, ['FASTCAR_PORT', 'SAS_EXPRESS_PORT'], 8080, 0, 65535),
    logLevel: pinoLevel,
    rpcTimeoutMs: integer(env, ['FASTCAR_RPC_TIMEOUT_MS'], 30_000, 100, 600_000),
    cacheMaxBytes: integer(env, ['FASTCAR_CACHE_MAX_BYTES'], 256 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    redisUrl: pick(env, 'REDIS_URL', 'FASTCAR_REDIS_URL'),
    redisTtlSeconds: integer(env, ['FASTCAR_REDIS_TTL_SECONDS'], 7 * 24 * 3600, 1, 365 * 24 * 3600),
    devnetPort: integer(env, ['DEVNET_PORT'], 9944, 0, 65535),
    workers: integer(env, ['WORKERS', 'FASTCAR_WORKERS'], 1, 1, 256),
    rateLimitPerIp: integer(env, ['FASTCAR_RATE_LIMIT_PER_IP'], 0, 0, 1_000_000),
    trustedProxies: integer(env, ['FASTCAR_TRUSTED_PROXIES'], 0, 0, 10),
    prebuildBlocks: integer(env, ['FASTCAR_PREBUILD_BLOCKS'], 4, 0, 64),
    strictParams: boolean(env, 'FASTCAR_STRICT_PARAMS', false),
    relayUrl: relayUrlOf(env),
    finalizedPollMs: integer(env, ['FASTCAR_FINALIZED_POLL_MS'], 3000, 100, 600_000),
    rpcMaxBatch: integer(env, ['FASTCAR_RPC_MAX_BATCH'], 100, 1, 10_000),
    rpcMaxInFlight: integer(env, ['FASTCAR_RPC_MAX_IN_FLIGHT'], 20, 1, 4096),
    rpcRatePerSecond: integer(env, ['FASTCAR_RPC_RATE_PER_SECOND'], 0, 0, 1_000_000),
    rpcHttp2: boolean(env, 'FASTCAR_RPC_HTTP2', true),
  };
}

export const HELP = `fastcar: a fast, sidecar-compatible REST API for Substrate blocks

Usage: npm start            (or: node dist/src/main.js [--help])
       node dist/src/main.js proxy [--config proxy.json]   the caching JSON-RPC proxy

Environment (sidecar's names work too):
  FASTCAR_NODE_URL / SAS_SUBSTRATE_URL   node JSON-RPC URL (ws://, wss://, http://, https://);
                                         unset: start the bundled devnet and use it
  FASTCAR_RELAY_URL                      the relay chain's node, when the node above is a
                                         parachain's (Asset Hub): serves /rc/blocks/... and
                                         useRcBlock=true; SAS_SUBSTRATE_MULTI_CHAIN_URL
                                         ('[{"url":"ws://...","type":"relay"}]') works too
  FASTCAR_PORT / SAS_EXPRESS_PORT        HTTP port (default 8080)
  FASTCAR_HOST / SAS_EXPRESS_BIND_HOST   bind address (default 127.0.0.1)
  FASTCAR_LOG_LEVEL / SAS_LOG_LEVEL      error | warn | info | debug | trace | silent (default info)
  FASTCAR_RPC_TIMEOUT_MS                 per RPC call; past it the request gets 504 (default 30000)
  FASTCAR_FINALIZED_POLL_MS              http(s) node: how often the finalized head is polled,
                                         shared by all requests (default 3000)
  FASTCAR_RPC_MAX_BATCH                  http(s) node: calls in one JSON-RPC batch; a larger
                                         wave is split (default 100)
  FASTCAR_RPC_MAX_IN_FLIGHT              http(s) node: requests in flight at once, learned
                                         down when the node answers 429 (default 20)
  FASTCAR_RPC_RATE_PER_SECOND            http(s) node: requests per second (default 0: none
                                         of our own; one is learned from 429s)
  FASTCAR_RPC_HTTP2                      http(s) node: offer HTTP/2 over TLS (default true)
  FASTCAR_CACHE_MAX_BYTES                in-process cache bound (default 268435456)
  REDIS_URL                              optional shared cache, e.g. redis://127.0.0.1:6379
  FASTCAR_REDIS_TTL_SECONDS              Redis entry lifetime (default 604800)
  DEVNET_PORT                            port of the bundled devnet (default 9944)
  WORKERS                                server processes sharing the port (default 1);
                                         give them REDIS_URL to share one cache
  FASTCAR_PREBUILD_BLOCKS                newly finalized blocks built before anyone asks,
                                         at most this many per advance (default 4; 0: off)
  FASTCAR_RATE_LIMIT_PER_IP              requests per second per client address, bursts up
                                         to one second's worth; beyond: 429 (default 0: off)
  FASTCAR_STRICT_PARAMS                  true: query parameters a route does not use get a
                                         400 (default false: ignored, as sidecar does, and
                                         named in the X-Ignored-Params header)
  FASTCAR_TRUSTED_PROXIES                balancers in front that append X-Forwarded-For,
                                         so the client address is read from it (default 0)

Proxy environment (over the --config file):
  PROXY_UPSTREAMS                        comma-separated ws:// URLs of the nodes (required)
  PROXY_HOST, PROXY_PORT                 bind address and port (default 127.0.0.1:9955)
  PROXY_CACHE_MAX_BYTES                  cache bound (default 536870912)
  PROXY_MAX_CONCURRENT                   calls in flight per upstream (default 256)
  PROXY_TIMEOUT_MS, PROXY_RETRIES        per call; retries go to another upstream
  PROXY_MAX_LAG_BLOCKS                   how far behind the best node a node may serve (10)
  PROXY_HEALTH_INTERVAL_MS               how often upstreams are checked (default 2000)
  PROXY_MAX_BODY_BYTES                   largest HTTP body or WebSocket message (default 16777216)
  PROXY_LOG_LEVEL                        as FASTCAR_LOG_LEVEL (default info)
  PROXY_ALLOW_METHODS                    methods let through beyond the safe defaults,
                                         comma-separated names or prefixes (dev_*)
  PROXY_DENY_METHODS                     methods refused, even safe ones
  PROXY_MAX_BATCH_SIZE                   calls in one batch (default 256)
  PROXY_MAX_IN_FLIGHT_PER_CONNECTION     calls of one connection in flight (default 32)
  PROXY_MAX_QUEUED_PER_CONNECTION        messages of one WebSocket waiting before it is
                                         no longer read (default 1024)
  PROXY_MAX_SUBSCRIPTIONS_PER_CONNECTION (default 1024)
  PROXY_MAX_CONNECTIONS                  (default 4096)
  PROXY_HEADERS_TIMEOUT_MS, PROXY_REQUEST_TIMEOUT_MS
                                         slow HTTP clients (default 10000 and 30000)
`;
