// Configuration from the environment. Sidecar's variable names are accepted
// so that a sidecar deployment can switch without renaming anything. Each setting
// is declared once, in SETTINGS: its variables, how its value is read and checked,
// its default and its `--help` line. The variable list the deployment files are
// checked against, the defaults and `--help` all come from there.
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

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

interface Setting<K extends keyof Config = keyof Config> {
  key: K;
  /** The variables read, the first one set winning: fastcar's own name first, then sidecar's or an alias. */
  names: readonly string[];
  /** What `--help` says of it, default included. */
  help: string;
  read(env: Env): Config[K];
}

/** The setting a relay-chain feature names when it is missing. */
export const RELAY_SETTING = 'FASTCAR_RELAY_URL (or SAS_SUBSTRATE_MULTI_CHAIN_URL with a chain of type "relay")';

const NODE_URL = /^(wss?|https?):\/\//;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** Sidecar's winston levels, as pino's. */
const SIDECAR_LOG_LEVELS: Record<string, string> = { http: 'info', verbose: 'debug', silly: 'trace' };

function pick(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

const invalid = (names: readonly string[], raw: string, rule: string) => new ConfigError(`${names[0]}=${raw} is not valid: ${rule}`);

function text<K extends keyof Config>(key: K, names: readonly string[], fallback: Config[K] & string, help: string): Setting<K> {
  return { key, names, help: `${help} (default ${fallback})`, read: (env) => (pick(env, names) ?? fallback) as Config[K] };
}

function optionalText<K extends keyof Config>(key: K, names: readonly string[], help: string): Setting<K> {
  return { key, names, help, read: (env) => pick(env, names) as Config[K] };
}

function whole<K extends keyof Config>(key: K, names: readonly string[], fallback: number, [min, max]: [number, number], help: string, note = ''): Setting<K> {
  return {
    key,
    names,
    // A note on the default value itself ("0: off") reads as one with it.
    help: `${help} (default ${note.startsWith(`${fallback}:`) ? note : `${fallback}${note ? `; ${note}` : ''}`})`,
    read(env) {
      const raw = pick(env, names);
      if (raw === undefined) return fallback as Config[K];
      const value = Number(raw);
      if (!Number.isInteger(value) || value < min || value > max) throw invalid(names, raw, `use a whole number from ${min} to ${max}`);
      return value as Config[K];
    },
  };
}

function flag<K extends keyof Config>(key: K, names: readonly string[], fallback: boolean, help: string): Setting<K> {
  return {
    key,
    names,
    help: `${help} (default ${fallback})`,
    read(env) {
      const raw = pick(env, names);
      if (raw === undefined) return fallback as Config[K];
      if (raw !== 'true' && raw !== 'false') throw invalid(names, raw, 'use true or false');
      return (raw === 'true') as Config[K];
    },
  };
}

/** A port, or `off` for none. */
function portOrOff<K extends keyof Config>(key: K, names: readonly string[], fallback: number, help: string): Setting<K> {
  return {
    key,
    names,
    help: `${help} (default ${fallback}; 0: any free port; off: none)`,
    read(env) {
      const raw = pick(env, names);
      if (raw === 'off') return undefined as Config[K];
      if (raw === undefined) return fallback as Config[K];
      const value = Number(raw);
      if (!Number.isInteger(value) || value < 0 || value > 65535) throw invalid(names, raw, 'use a whole number from 0 to 65535 or off');
      return value as Config[K];
    },
  };
}

function nodeUrl<K extends keyof Config>(key: K, names: readonly string[], help: string): Setting<K> {
  return {
    key,
    names,
    help,
    read(env) {
      const url = pick(env, names);
      if (url !== undefined && !NODE_URL.test(url)) throw new ConfigError(`node URL ${url} must start with ws://, wss://, http:// or https://`);
      return url as Config[K];
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
    const relay = chains.find((chain): chain is { url: string } => typeof chain === 'object' && chain !== null && (chain as { type?: unknown }).type === 'relay');
    url = relay && typeof relay.url === 'string' ? relay.url : undefined;
  }
  if (url !== undefined && !NODE_URL.test(url)) throw new ConfigError(`relay node URL ${url} must start with ws://, wss://, http:// or https://`);
  return url;
}

function logLevelOf(env: Env): string {
  const level = (pick(env, ['FASTCAR_LOG_LEVEL', 'SAS_LOG_LEVEL']) ?? 'info').toLowerCase();
  const pinoLevel = SIDECAR_LOG_LEVELS[level] ?? level;
  if (!LOG_LEVELS.includes(pinoLevel)) throw new ConfigError(`log level ${level} is not one of error, warn, info, debug, trace, silent`);
  return pinoLevel;
}

const SETTINGS: readonly Setting[] = [
  nodeUrl('nodeUrl', ['FASTCAR_NODE_URL', 'SAS_SUBSTRATE_URL'], 'node JSON-RPC URL (ws://, wss://, http://); unset: start the bundled devnet and use it'),
  {
    key: 'relayUrl',
    names: ['FASTCAR_RELAY_URL', 'SAS_SUBSTRATE_MULTI_CHAIN_URL'],
    help: `the relay chain's node, when the node above is a parachain's (Asset Hub): serves /rc/blocks/... and useRcBlock=true; sidecar's form: '[{"url":"ws://...","type":"relay"}]'`,
    read: relayUrlOf,
  },
  whole('port', ['FASTCAR_PORT', 'SAS_EXPRESS_PORT'], 8080, [0, 65535], 'HTTP port'),
  text('host', ['FASTCAR_HOST', 'SAS_EXPRESS_BIND_HOST'], '127.0.0.1', 'bind address'),
  { key: 'logLevel', names: ['FASTCAR_LOG_LEVEL', 'SAS_LOG_LEVEL'], help: 'error | warn | info | debug | trace | silent (default info)', read: logLevelOf },
  whole('rpcTimeoutMs', ['FASTCAR_RPC_TIMEOUT_MS'], 30_000, [100, 600_000], 'per RPC call; past it the request gets 504'),
  whole('cacheMaxBytes', ['FASTCAR_CACHE_MAX_BYTES'], 256 * 1024 * 1024, [0, Number.MAX_SAFE_INTEGER], 'in-process cache bound'),
  optionalText('redisUrl', ['REDIS_URL', 'FASTCAR_REDIS_URL'], 'optional shared cache, e.g. redis://127.0.0.1:6379'),
  whole('redisTtlSeconds', ['FASTCAR_REDIS_TTL_SECONDS'], 7 * 24 * 3600, [1, 365 * 24 * 3600], 'Redis entry lifetime'),
  whole('devnetPort', ['DEVNET_PORT'], 9944, [0, 65535], 'port of the bundled devnet'),
  whole('workers', ['WORKERS', 'FASTCAR_WORKERS'], 1, [1, 256], 'server processes sharing the port; give them REDIS_URL to share one cache'),
  whole('prebuildBlocks', ['FASTCAR_PREBUILD_BLOCKS'], 4, [0, 64], 'newly finalized blocks built before anyone asks, at most this many per advance', '0: off'),
  whole('rateLimitPerIp', ['FASTCAR_RATE_LIMIT_PER_IP'], 0, [0, 1_000_000], 'requests per second per client address, bursts up to one second\'s worth; beyond: 429', '0: off'),
  flag('strictParams', ['FASTCAR_STRICT_PARAMS'], false, 'query parameters a route does not use: true, a 400; false, ignored as sidecar does and named in the X-Ignored-Params header'),
  whole('trustedProxies', ['FASTCAR_TRUSTED_PROXIES'], 0, [0, 10], 'balancers in front that append X-Forwarded-For, so the client address is read from it'),
  portOrOff('metricsPort', ['FASTCAR_METRICS_PORT'], 9100, 'port of /metrics, apart from the API'),
  text('metricsHost', ['FASTCAR_METRICS_HOST'], '127.0.0.1', 'bind address of /metrics'),
  whole('headersTimeoutMs', ['FASTCAR_HEADERS_TIMEOUT_MS'], 10_000, [100, 600_000], "a client's request headers must arrive within this"),
  whole('requestTimeoutMs', ['FASTCAR_REQUEST_TIMEOUT_MS'], 60_000, [100, 3_600_000], 'and its whole request within this'),
  whole('maxStreams', ['FASTCAR_MAX_STREAMS'], 1000, [0, 1_000_000], '/blocks/stream connections open at once per process; beyond: 503', '0: streams off'),
  whole('streamBufferBytes', ['FASTCAR_STREAM_BUFFER_BYTES'], 8 * 1024 * 1024, [64 * 1024, 1024 * 1024 * 1024], 'unsent bytes a stream may have before its client is dropped as too far behind, told where to resume'),
  whole('extrinsicIndexBlocks', ['FASTCAR_EXTRINSIC_INDEX_BLOCKS'], 14_400, [0, 1_000_000], 'newest finalized blocks /extrinsics/{hash} searches', 'about a day; 0: only ?from&to'),
  whole('finalizedPollMs', ['FASTCAR_FINALIZED_POLL_MS'], 3000, [100, 600_000], 'http(s) node: how often the finalized head is polled (a WebSocket node pushes it)'),
  whole('rpcMaxBatch', ['FASTCAR_RPC_MAX_BATCH'], 100, [1, 10_000], 'http(s) node: calls in one JSON-RPC batch; a larger wave is split'),
  whole('rpcMaxInFlight', ['FASTCAR_RPC_MAX_IN_FLIGHT'], 20, [1, 4096], 'http(s) node: requests in flight at once, lowered when the provider answers 429'),
  whole('rpcRatePerSecond', ['FASTCAR_RPC_RATE_PER_SECOND'], 0, [0, 1_000_000], 'http(s) node: requests per second', '0: no limit'),
  flag('rpcHttp2', ['FASTCAR_RPC_HTTP2'], true, 'http(s) node: offer HTTP/2 over TLS'),
];

/** Rules between settings, checked once all are read. */
function checkTogether(config: Config): void {
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(`FASTCAR_HEADERS_TIMEOUT_MS=${config.headersTimeoutMs} is not valid: it must not exceed FASTCAR_REQUEST_TIMEOUT_MS (${config.requestTimeoutMs})`);
  }
}

/** Every variable loadConfig reads; deployment files are checked against this list. */
export const CONFIG_VARIABLES: readonly string[] = SETTINGS.flatMap((setting) => setting.names);

export function loadConfig(env: Env = process.env): Config {
  const config = {} as Record<keyof Config, unknown>;
  for (const setting of SETTINGS) config[setting.key] = setting.read(env);
  checkTogether(config as Config);
  return config as Config;
}

const NAME_COLUMN = 41;
const LINE_WIDTH = 92;

/** A setting's `--help` lines: its names, then what it does, wrapped beside them. */
function helpLines({ names, help }: Setting): string {
  const label = `  ${names.join(' / ')}`;
  const lines: string[] = [];
  let line = '';
  for (const word of help.split(' ')) {
    if (line && NAME_COLUMN + line.length + 1 + word.length > LINE_WIDTH) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  const first = label.length < NAME_COLUMN ? `${label.padEnd(NAME_COLUMN)}${lines[0]}` : `${label}\n${' '.repeat(NAME_COLUMN)}${lines[0]}`;
  return [first, ...lines.slice(1).map((rest) => `${' '.repeat(NAME_COLUMN)}${rest}`)].join('\n');
}

/** The proxy's settings are declared by the proxy (src/proxy/proxyConfig.ts); summarized here for `--help`. */
const PROXY_HELP = `Proxy environment (over the --config file):
  PROXY_UPSTREAMS                        comma-separated ws(s):// or http(s):// URLs of the nodes (required)
  PROXY_HOST, PROXY_PORT                 bind address and port (default 127.0.0.1:9955)
  PROXY_CACHE_MAX_BYTES                  cache bound (default 536870912)
  PROXY_MAX_CONCURRENT                   calls in flight per upstream (default 256)
  PROXY_TIMEOUT_MS, PROXY_RETRIES        per call; retries go to another upstream
  PROXY_MAX_LAG_BLOCKS                   how far behind the best node a node may serve (10)
  PROXY_HEALTH_INTERVAL_MS               how often upstreams are checked (default 2000)
  PROXY_HTTP_MAX_BATCH                   http(s) upstream: calls in one batch POST (default 100)
  PROXY_HTTP_MAX_IN_FLIGHT               http(s) upstream: POSTs in flight, lowered when the
                                         provider answers 429 (default 20)
  PROXY_HTTP_RATE_PER_SECOND             http(s) upstream: POSTs per second (default 0: none)
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
  PROXY_MAX_ANSWER_BYTES                 one call's answer; past it -32008 (default 16777216)
  PROXY_MAX_BATCH_ANSWER_BYTES           a batch's answers together; calls past it -32008
                                         (default 33554432)
  PROXY_MAX_UNSENT_BYTES_PER_CONNECTION  answer bytes waiting for a WebSocket client to read
                                         them before its calls wait and it is not read
                                         (default 4194304)
  PROXY_SEND_TIMEOUT_MS                  a client that takes none of its waiting answers
                                         this long is disconnected (default 30000)
  PROXY_PING_INTERVAL_MS                 WebSocket pings; no pong to the last one: closed
                                         (default 30000)
  PROXY_IDLE_TIMEOUT_MS                  a WebSocket that sends nothing and holds no
                                         subscription this long is closed (default 300000)
  PROXY_MAX_CONNECTIONS_PER_CLIENT       per client address (default 64)
  PROXY_TRUSTED_PROXIES                  balancers in front that append X-Forwarded-For;
                                         client addresses are read from it (default 0)
  PROXY_MAX_IN_FLIGHT_PER_CLIENT         calls of one address at the nodes, counted until
                                         the node is done with them (default 64)
  PROXY_MAX_SUBSCRIPTIONS_PER_CLIENT     per client address (default 1024)
  PROXY_MAX_SUBSCRIPTIONS_PER_UPSTREAM_CONNECTION
                                         before another connection to the node is opened
                                         (default 1024, a node's own limit)
  PROXY_MAX_UPSTREAM_CONNECTIONS         connections to each node (default 8)
`;

export const HELP = `fastcar: a fast, sidecar-compatible REST API for Substrate blocks

Usage: npm start            (or: node dist/src/main.js [--help])
       node dist/src/main.js proxy [--config proxy.json]   the caching JSON-RPC proxy

Environment (sidecar's names work too):
${SETTINGS.map(helpLines).join('\n')}

${PROXY_HELP}`;
