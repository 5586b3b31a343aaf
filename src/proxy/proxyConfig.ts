// Proxy configuration: an optional JSON file (`--config FILE`), then the
// environment on top of it.
import { readFileSync } from 'node:fs';

import { ConfigError } from '../config';

export interface ProxyConfig {
  upstreams: string[];
  host: string;
  port: number;
  cacheMaxBytes: number;
  maxBodyBytes: number;
  maxConcurrentPerUpstream: number;
  timeoutMs: number;
  retries: number;
  maxLagBlocks: number;
  healthIntervalMs: number;
  logLevel: string;
}

const DEFAULTS: ProxyConfig = {
  upstreams: [],
  host: '127.0.0.1',
  port: 9955,
  cacheMaxBytes: 512 * 1024 * 1024,
  maxBodyBytes: 16 * 1024 * 1024,
  maxConcurrentPerUpstream: 256,
  timeoutMs: 30_000,
  retries: 2,
  maxLagBlocks: 10,
  healthIntervalMs: 2_000,
  logLevel: 'info',
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
];

/** Every variable loadProxyConfig reads; deployment files are checked against this list. */
export const PROXY_VARIABLES = ['PROXY_UPSTREAMS', 'PROXY_HOST', 'PROXY_LOG_LEVEL', ...NUMBERS.map(([, name]) => name)];

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
  if (env.PROXY_UPSTREAMS) config.upstreams = env.PROXY_UPSTREAMS.split(',').map((url) => url.trim()).filter(Boolean);
  if (env.PROXY_HOST) config.host = env.PROXY_HOST;
  if (env.PROXY_LOG_LEVEL) config.logLevel = env.PROXY_LOG_LEVEL;
  for (const [key, name] of NUMBERS) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name}=${raw} is not valid: use a whole number`);
    (config as unknown as Record<string, number>)[key] = value;
  }
  if (config.upstreams.length === 0) throw new ConfigError('the proxy needs upstream nodes: set PROXY_UPSTREAMS=ws://node-a:9944,ws://node-b:9944');
  for (const url of config.upstreams) {
    if (!/^wss?:\/\//.test(url)) throw new ConfigError(`upstream ${url} must be a ws:// or wss:// URL`);
  }
  return config;
}
