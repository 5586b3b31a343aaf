// Configuration from the environment. Sidecar's variable names are accepted
// so that a sidecar deployment can switch without renaming anything. Each setting
// is declared once, in SETTINGS: its variables, how its value is read and checked,
// its default and its `--help` line. The variable list the deployment files are
// checked against, the defaults and `--help` all come from there (src/settings.ts;
// the proxy's settings are declared the same way, in src/proxy/proxyConfig.ts).
import { BURST_WINDOWS } from './limits/rates';
import { PROXY_HELP } from './proxy/proxyConfig';
import {
  ConfigError,
  flag,
  helpOf,
  HTTP_NODE_LIMITS,
  optionalText,
  pick,
  portOrOff,
  readTable,
  text,
  variablesOf,
  whole,
  type Env,
  type Setting,
  type Table,
} from './settings';

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
  buildLeaseMs: number;
  devnetPort: number;
  /** Server processes sharing the port (node:cluster); 1 runs in this process. */
  workers: number;
  /** Requests per second allowed from one client address; 0: no limit. Counted in Redis when redisUrl is set. */
  rateLimitPerIp: number;
  /** Requests a client address may make beyond that rate, renewed every BURST_WINDOWS seconds. */
  rateLimitBurst: number;
  /** Proxies in front that append to X-Forwarded-For; 0: the peer address is the client. */
  trustedProxies: number;
  /** How many of the newest finalized blocks to build ahead of requests; 0: none. */
  prebuildBlocks: number;
  /** Reject query parameters a route does not use (sidecar ignores them). */
  strictParams: boolean;
  /** The port `/metrics` is served on, apart from the API; undefined: not served. */
  metricsPort?: number;
  metricsHost: string;
  /** Slow clients: their headers, and their whole request, within these. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Block streams (`/blocks/stream`) open at once in one process. */
  maxStreams: number;
  /** Unsent bytes a stream may have before its client counts as too far behind. */
  streamBufferBytes: number;
  /** Newest finalized blocks whose extrinsics `/extrinsics/{hash}` finds; 0: none (from/to only). */
  extrinsicIndexBlocks: number;
  /** Over HTTP(S), how often the finalized head is polled (a WebSocket node pushes it). */
  finalizedPollMs: number;
  /** Over HTTP(S): calls in one JSON-RPC batch, requests in flight, requests per second (0: no limit), HTTP/2 offered. */
  rpcMaxBatch: number;
  rpcMaxInFlight: number;
  rpcRatePerSecond: number;
  rpcHttp2: boolean;
}

export { ConfigError };

/** The setting a relay-chain feature names when it is missing. */
export const RELAY_SETTING = 'FASTCAR_RELAY_URL (or SAS_SUBSTRATE_MULTI_CHAIN_URL with a chain of type "relay")';

const NODE_URL = /^(wss?|https?):\/\//;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** Sidecar's winston levels, as pino's. */
const SIDECAR_LOG_LEVELS: Record<string, string> = { http: 'info', verbose: 'debug', silly: 'trace' };

function nodeUrl(names: readonly string[], help: string): Setting<string | undefined> {
  return {
    names,
    fallback: undefined,
    help,
    read(env, base) {
      const url = pick(env, names) ?? base;
      if (url !== undefined && !NODE_URL.test(url)) throw new ConfigError(`node URL ${url} must start with ws://, wss://, http:// or https://`);
      return url;
    },
  };
}

/**
 * The relay node: FASTCAR_RELAY_URL, or sidecar's SAS_SUBSTRATE_MULTI_CHAIN_URL, a JSON
 * array of `{ url, type }` of which the entry of type "relay" is the one used here.
 */
function relayUrlOf(env: Env): string | undefined {
  const multi = pick(env, ['SAS_SUBSTRATE_MULTI_CHAIN_URL']);
  let url = pick(env, ['FASTCAR_RELAY_URL']);
  if (url === undefined && multi !== undefined) {
    let chains: unknown;
    try {
      chains = JSON.parse(multi);
    } catch {
      throw new ConfigError('SAS_SUBSTRATE_MULTI_CHAIN_URL is not valid: use a JSON array such as [{"url":"ws://...","type":"relay"}]');
    }
    if (!Array.isArray(chains)) throw new ConfigError('SAS_SUBSTRATE_MULTI_CHAIN_URL is not valid: use a JSON array of {url, type}');
    const relay = chains.find(
      (chain): chain is { url: string } => typeof chain === 'object' && chain !== null && (chain as { type?: unknown }).type === 'relay',
    );
    url = relay && typeof relay.url === 'string' ? relay.url : undefined;
  }
  if (url !== undefined && !NODE_URL.test(url)) throw new ConfigError(`relay node URL ${url} must start with ws://, wss://, http:// or https://`);
  return url;
}

function logLevelOf(raw: string): string {
  const level = raw.toLowerCase();
  const pinoLevel = SIDECAR_LOG_LEVELS[level] ?? level;
  if (!LOG_LEVELS.includes(pinoLevel)) throw new ConfigError(`log level ${level} is not one of error, warn, info, debug, trace, silent`);
  return pinoLevel;
}

const SETTINGS: Table<Config> = {
  nodeUrl: nodeUrl(['FASTCAR_NODE_URL', 'SAS_SUBSTRATE_URL'], 'node JSON-RPC URL (ws://, wss://, http://); unset: start the bundled devnet and use it'),
  relayUrl: {
    names: ['FASTCAR_RELAY_URL', 'SAS_SUBSTRATE_MULTI_CHAIN_URL'],
    help: `the relay chain's node, when the node above is a parachain's (Asset Hub): serves /rc/blocks/... and useRcBlock=true; sidecar's form: '[{"url":"ws://...","type":"relay"}]'`,
    fallback: undefined,
    read: (env, base) => relayUrlOf(env) ?? base,
  },
  port: whole(['FASTCAR_PORT', 'SAS_EXPRESS_PORT'], 8080, [0, 65535], 'HTTP port'),
  host: text(['FASTCAR_HOST', 'SAS_EXPRESS_BIND_HOST'], '127.0.0.1', 'bind address'),
  logLevel: {
    names: ['FASTCAR_LOG_LEVEL', 'SAS_LOG_LEVEL'],
    help: 'error | warn | info | debug | trace | silent (default info)',
    fallback: 'info',
    read: (env, base) => logLevelOf(pick(env, ['FASTCAR_LOG_LEVEL', 'SAS_LOG_LEVEL']) ?? base),
  },
  rpcTimeoutMs: whole(['FASTCAR_RPC_TIMEOUT_MS'], 30_000, [100, 600_000], 'per RPC call; past it the request gets 504'),
  cacheMaxBytes: whole(['FASTCAR_CACHE_MAX_BYTES'], 256 * 1024 * 1024, [0, Number.MAX_SAFE_INTEGER], 'in-process cache bound'),
  redisUrl: optionalText(['REDIS_URL', 'FASTCAR_REDIS_URL'], 'optional shared cache and per-client rate limit counters, e.g. redis://127.0.0.1:6379'),
  redisTtlSeconds: whole(['FASTCAR_REDIS_TTL_SECONDS'], 7 * 24 * 3600, [1, 365 * 24 * 3600], 'Redis entry lifetime'),
  buildLeaseMs: whole(
    ['FASTCAR_BUILD_LEASE_MS'],
    5000,
    [100, 600_000],
    'with Redis: how long a replica building a final block answer holds it for the fleet; the longest the others wait on one that died',
  ),
  devnetPort: whole(['DEVNET_PORT'], 9944, [0, 65535], 'port of the bundled devnet'),
  workers: whole(['WORKERS', 'FASTCAR_WORKERS'], 1, [1, 256], 'server processes sharing the port; give them REDIS_URL to share one cache'),
  prebuildBlocks: whole(['FASTCAR_PREBUILD_BLOCKS'], 4, [0, 64], 'newly finalized blocks built before anyone asks, at most this many per advance', '0: off'),
  rateLimitPerIp: whole(
    ['FASTCAR_RATE_LIMIT_PER_IP'],
    0,
    [0, 1_000_000],
    "requests per second per client address, bursts up to one second's worth; beyond: 429. With REDIS_URL counted there: one limit for every replica",
    '0: off',
  ),
  rateLimitBurst: whole(
    ['FASTCAR_RATE_LIMIT_BURST'],
    0,
    [0, 1_000_000],
    `requests per client address beyond FASTCAR_RATE_LIMIT_PER_IP, at most this many every ${BURST_WINDOWS} seconds`,
  ),
  strictParams: flag(
    ['FASTCAR_STRICT_PARAMS'],
    false,
    'query parameters a route does not use: true, a 400; false, ignored as sidecar does and named in the X-Ignored-Params header',
  ),
  trustedProxies: whole(['FASTCAR_TRUSTED_PROXIES'], 0, [0, 10], 'balancers in front that append X-Forwarded-For, so the client address is read from it'),
  metricsPort: portOrOff(['FASTCAR_METRICS_PORT'], 9100, 'port of /metrics, apart from the API'),
  metricsHost: text(['FASTCAR_METRICS_HOST'], '127.0.0.1', 'bind address of /metrics'),
  headersTimeoutMs: whole(['FASTCAR_HEADERS_TIMEOUT_MS'], 10_000, [100, 600_000], "a client's request headers must arrive within this"),
  requestTimeoutMs: whole(['FASTCAR_REQUEST_TIMEOUT_MS'], 60_000, [100, 3_600_000], 'and its whole request within this'),
  maxStreams: whole(['FASTCAR_MAX_STREAMS'], 1000, [0, 1_000_000], '/blocks/stream connections open at once per process; beyond: 503', '0: streams off'),
  streamBufferBytes: whole(
    ['FASTCAR_STREAM_BUFFER_BYTES'],
    8 * 1024 * 1024,
    [64 * 1024, 1024 * 1024 * 1024],
    'unsent bytes a stream may have before its client is dropped as too far behind, told where to resume',
  ),
  extrinsicIndexBlocks: whole(
    ['FASTCAR_EXTRINSIC_INDEX_BLOCKS'],
    14_400,
    [0, 1_000_000],
    'newest finalized blocks /extrinsics/{hash} searches',
    'about a day; 0: only ?from&to',
  ),
  finalizedPollMs: whole(
    ['FASTCAR_FINALIZED_POLL_MS'],
    3000,
    [100, 600_000],
    'http(s) node: how often the finalized head is polled (a WebSocket node pushes it)',
  ),
  rpcMaxBatch: whole(['FASTCAR_RPC_MAX_BATCH'], HTTP_NODE_LIMITS.maxBatch, [1, 10_000], 'http(s) node: calls in one JSON-RPC batch; a larger wave is split'),
  rpcMaxInFlight: whole(
    ['FASTCAR_RPC_MAX_IN_FLIGHT'],
    HTTP_NODE_LIMITS.maxInFlight,
    [1, 4096],
    'http(s) node: requests in flight at once, lowered when the provider answers 429',
  ),
  rpcRatePerSecond: whole(['FASTCAR_RPC_RATE_PER_SECOND'], 0, [0, 1_000_000], 'http(s) node: requests per second', '0: no limit'),
  rpcHttp2: flag(['FASTCAR_RPC_HTTP2'], true, 'http(s) node: offer HTTP/2 over TLS'),
};

/** Rules between settings, checked once all are read. */
function checkTogether(config: Config): void {
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(
      `FASTCAR_HEADERS_TIMEOUT_MS=${config.headersTimeoutMs} is not valid: it must not exceed FASTCAR_REQUEST_TIMEOUT_MS (${config.requestTimeoutMs})`,
    );
  }
}

/** Every variable loadConfig reads; deployment files are checked against this list. */
export const CONFIG_VARIABLES: readonly string[] = variablesOf(SETTINGS);

export function loadConfig(env: Env = process.env): Config {
  const config = readTable(SETTINGS, env);
  checkTogether(config);
  return config;
}

export const HELP = `fastcar: a fast, sidecar-compatible REST API for Substrate blocks

Usage: npm start            (or: node dist/src/main.js [--help])
       node dist/src/main.js proxy [--config proxy.json]   the caching JSON-RPC proxy

Environment (sidecar's names work too):
${helpOf(SETTINGS)}

Proxy environment (over the --config file):
${PROXY_HELP}
`;
