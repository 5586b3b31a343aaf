// Each setting is declared once (src/config.ts, and the proxy's in
// src/proxy/proxyConfig.ts, with the same table): the variable list, the defaults
// and `--help` come from that one declaration, so they cannot disagree.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CONFIG_VARIABLES, HELP, loadConfig } from '../../src/config';
import { loadProxyConfig, PROXY_VARIABLES, proxyConfigFor } from '../../src/proxy/proxyConfig';

describe('the settings table', () => {
  it('names each variable once, and --help names every one of them', () => {
    expect(new Set(CONFIG_VARIABLES).size).toBe(CONFIG_VARIABLES.length);
    for (const name of CONFIG_VARIABLES) expect([name, HELP.includes(name)]).toEqual([name, true]);
  });

  it('states in --help the defaults loadConfig applies', () => {
    const defaults = loadConfig({});
    const line = (name: string) =>
      HELP.split(/\n(?= {2}[A-Z])/)
        .find((entry) => entry.trim().startsWith(name))
        ?.replace(/\s+/g, ' ') ?? '';
    expect(line('FASTCAR_PORT')).toContain(`(default ${defaults.port})`);
    expect(line('FASTCAR_CACHE_MAX_BYTES')).toContain(`(default ${defaults.cacheMaxBytes})`);
    expect(line('FASTCAR_METRICS_PORT')).toContain(`(default ${defaults.metricsPort};`);
    expect(line('FASTCAR_HEADERS_TIMEOUT_MS')).toContain(`(default ${defaults.headersTimeoutMs})`);
    expect(line('FASTCAR_STRICT_PARAMS')).toContain(`(default ${defaults.strictParams})`);
  });

  it("names each of the proxy's variables once, in --help too, with the defaults it applies", () => {
    expect(new Set(PROXY_VARIABLES).size).toBe(PROXY_VARIABLES.length);
    for (const name of PROXY_VARIABLES) expect([name, HELP.includes(name)]).toEqual([name, true]);
    const defaults = loadProxyConfig([], { PROXY_UPSTREAMS: 'ws://node:9944' });
    expect(defaults).toEqual(proxyConfigFor(['ws://node:9944']));
    const line = (name: string) =>
      HELP.split(/\n(?= {2}[A-Z])/)
        .find((entry) => entry.trim().split(/\s/)[0] === name)
        ?.replace(/\s+/g, ' ') ?? '';
    expect(line('PROXY_PORT')).toContain(`(default ${defaults.port})`);
    expect(line('PROXY_CACHE_MAX_BYTES')).toContain(`(default ${defaults.cacheMaxBytes})`);
    expect(line('PROXY_HTTP_MAX_BATCH')).toContain(`(default ${defaults.httpMaxBatch})`);
    expect(line('PROXY_HTTP_MAX_IN_FLIGHT')).toContain(`(default ${defaults.httpMaxInFlight})`);
    expect(line('PROXY_MAX_ANSWER_BYTES')).toContain(`(default ${defaults.maxAnswerBytes})`);
  });

  it('gives fastcar and the proxy the same limits for an http(s) node by default', () => {
    const proxy = proxyConfigFor(['https://provider.example']);
    expect([proxy.httpMaxBatch, proxy.httpMaxInFlight]).toEqual([loadConfig({}).rpcMaxBatch, loadConfig({}).rpcMaxInFlight]);
  });

  it("holds the proxy's config file to the checks its variables get, the variables winning over it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'fastcar-proxy-config-'));
    const file = (body: object) => {
      const path = join(dir, `${Math.random()}.json`);
      writeFileSync(path, JSON.stringify(body));
      return ['--config', path];
    };
    const env = { PROXY_UPSTREAMS: 'ws://node:9944' };
    expect(loadProxyConfig(file({ maxBatchSize: 8, port: 7000 }), { ...env, PROXY_PORT: '7001' })).toMatchObject({ maxBatchSize: 8, port: 7001 });
    expect(() => loadProxyConfig(file({ maxBatchSize: 0 }), env)).toThrow('maxBatchSize must be at least 1');
    expect(() => loadProxyConfig([], { ...env, PROXY_MAX_BATCH_SIZE: '0' })).toThrow('maxBatchSize must be at least 1');
    expect(() => loadProxyConfig([], { ...env, PROXY_MAX_BATCH_SIZE: 'many' })).toThrow('PROXY_MAX_BATCH_SIZE=many is not valid: use a whole number');
    expect(() => loadProxyConfig(file({ trustedProxies: 11 }), env)).toThrow('trustedProxies must be between 0 and 10');
    expect(() => loadProxyConfig(file({ allowMethods: ['dev newBlock'] }), env)).toThrow('allowMethods must be a list of method names');
    expect(loadProxyConfig(file({ allowMethods: ['dev_*'] }), { ...env, PROXY_ALLOW_METHODS: '' }).allowMethods).toEqual([]);
    expect(loadProxyConfig(file({ upstreams: ['wss://a.example'] }), {}).upstreams).toEqual(['wss://a.example']);
  });

  it("refuses a config file's misspelt keys and values of the wrong type (a reload must not half-apply one)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'fastcar-proxy-config-'));
    const file = (body: string) => {
      const path = join(dir, `${Math.random()}.json`);
      writeFileSync(path, body);
      return ['--config', path];
    };
    const env = { PROXY_UPSTREAMS: 'ws://node:9944' };
    expect(() => loadProxyConfig(file('{"upstream": ["ws://a:9944"]}'), env)).toThrow('unknown setting upstream');
    expect(() => loadProxyConfig(file('{"cacheMaxBytes": "1000"}'), env)).toThrow('cacheMaxBytes must be a whole number');
    expect(() => loadProxyConfig(file('{"tipCacheMaxBytes": -1}'), env)).toThrow('tipCacheMaxBytes must be a whole number');
    expect(() => loadProxyConfig(file('{"denyMethods": "dev_*"}'), env)).toThrow('denyMethods must be a list');
    expect(() => loadProxyConfig(file('{"host": 7}'), env)).toThrow('host must be a string');
    expect(() => loadProxyConfig(file('[1]'), env)).toThrow('must be a JSON object');
    expect(loadProxyConfig(file('{"tipCacheMaxBytes": 0, "drainTimeoutMs": 5000}'), env)).toMatchObject({ tipCacheMaxBytes: 0, drainTimeoutMs: 5000 });
  });
});
