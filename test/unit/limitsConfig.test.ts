// How the rate limits are configured: the method rules' syntax, which rule a
// method falls under, and the settings of fastcar and of the proxy that carry them
// (from the environment and from the proxy's config file, held to the same checks).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { HELP, loadConfig } from '../../src/config';
import { MethodRates, parseMethodRates } from '../../src/limits/rates';
import { loadProxyConfig } from '../../src/proxy/proxyConfig';

describe('parseMethodRates', () => {
  it('reads method=calls and method=calls+burst, exact names and prefixes, spaces and empty entries allowed', () => {
    expect(parseMethodRates(' state_call=20+40, state_getKeysPaged = 10 ,, archive_*=5')).toEqual([
      { pattern: 'state_call', calls: 20, burst: 40 },
      { pattern: 'state_getKeysPaged', calls: 10, burst: 0 },
      { pattern: 'archive_*', calls: 5, burst: 0 },
    ]);
    expect(parseMethodRates('')).toEqual([]);
  });

  it('refuses what it cannot read, naming the setting and the entry', () => {
    const cases: [string, string][] = [
      ['state_call', 'PROXY_RATE_LIMIT_METHODS: "state_call" is not valid: write each as method=calls'],
      ['state_call=many', '"state_call=many" is not valid'],
      ['state_call=-1', '"state_call=-1" is not valid'],
      ['state_call=1.5', '"state_call=1.5" is not valid'],
      ['state_call=0', 'state_call needs from 1 to 1000000 calls'],
      ['state_call=2000000', 'state_call needs from 1 to 1000000 calls'],
      ['state_call=1+2000000', 'a burst of at most 1000000'],
      ['sta*te=1', '"sta*te" is not a method name or a prefix ending in *'],
      ['__proto__.x=1', 'is not a method name'],
      ['state_call=1,state_call=2', 'state_call is named twice'],
    ];
    for (const [spec, message] of cases) expect(() => parseMethodRates(spec, 'PROXY_RATE_LIMIT_METHODS')).toThrow(message);
    const many = Array.from({ length: 65 }, (_, i) => `m${i}=1`).join(',');
    expect(() => parseMethodRates(many)).toThrow('at most 64 methods');
  });
});

describe('MethodRates', () => {
  const rates = new MethodRates(parseMethodRates('state_call=1,state_*=2,state_getKeys*=3,archive_*=4'));

  it('puts a method under its own rule first, else under the longest prefix that matches', () => {
    expect(rates.of('state_call')?.pattern).toBe('state_call');
    expect(rates.of('state_getKeysPaged')?.pattern).toBe('state_getKeys*');
    expect(rates.of('state_getStorage')?.pattern).toBe('state_*');
    expect(rates.of('archive_v1_body')?.pattern).toBe('archive_*');
    expect(rates.of('chain_getBlock')).toBeUndefined();
    expect(rates.of('')).toBeUndefined();
    expect(rates.of('constructor')).toBeUndefined();
  });
});

describe("fastcar's rate limit settings", () => {
  it('keeps FASTCAR_RATE_LIMIT_PER_IP as it was, adds a burst, and says both in --help', () => {
    expect(loadConfig({})).toMatchObject({ rateLimitPerIp: 0, rateLimitBurst: 0 });
    expect(loadConfig({ FASTCAR_RATE_LIMIT_PER_IP: '200', FASTCAR_RATE_LIMIT_BURST: '400' })).toMatchObject({ rateLimitPerIp: 200, rateLimitBurst: 400 });
    expect(() => loadConfig({ FASTCAR_RATE_LIMIT_BURST: '-1' })).toThrow('FASTCAR_RATE_LIMIT_BURST=-1 is not valid');
    expect(HELP).toContain('FASTCAR_RATE_LIMIT_BURST');
  });
});

describe("the proxy's rate limit settings", () => {
  const env = { PROXY_UPSTREAMS: 'ws://node:9944' };

  it('are off by default, and read from the environment', () => {
    expect(loadProxyConfig([], env)).toMatchObject({ redisUrl: undefined, rateLimit: 0, rateLimitWindowSeconds: 1, rateLimitBurst: 0, rateLimitMethods: '' });
    const set = loadProxyConfig([], {
      ...env,
      PROXY_REDIS_URL: 'redis://redis:6379',
      PROXY_RATE_LIMIT: '100',
      PROXY_RATE_LIMIT_WINDOW_SECONDS: '10',
      PROXY_RATE_LIMIT_BURST: '50',
      PROXY_RATE_LIMIT_METHODS: 'state_call=5+5,archive_*=2',
    });
    expect(set).toMatchObject({
      redisUrl: 'redis://redis:6379',
      rateLimit: 100,
      rateLimitWindowSeconds: 10,
      rateLimitBurst: 50,
      rateLimitMethods: 'state_call=5+5,archive_*=2',
    });
  });

  it('hold the config file to the same checks, the environment winning over it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fastcar-limits-config-'));
    const file = (body: object) => {
      const path = join(dir, `${Math.random()}.json`);
      writeFileSync(path, JSON.stringify(body));
      return ['--config', path];
    };
    expect(loadProxyConfig(file({ rateLimit: 10, rateLimitMethods: 'state_call=1' }), { ...env, PROXY_RATE_LIMIT: '20' })).toMatchObject({
      rateLimit: 20,
      rateLimitMethods: 'state_call=1',
    });
    expect(() => loadProxyConfig(file({ rateLimitMethods: 'state_call' }), env)).toThrow('rateLimitMethods: "state_call" is not valid');
    expect(() => loadProxyConfig(file({ rateLimitMethods: { state_call: 1 } }), env)).toThrow('rateLimitMethods must be a string');
    expect(() => loadProxyConfig(file({ rateLimitWindowSeconds: 0 }), env)).toThrow('rateLimitWindowSeconds must be between 1 and 3600');
    expect(() => loadProxyConfig([], { ...env, PROXY_RATE_LIMIT_WINDOW_SECONDS: '0.5' })).toThrow('PROXY_RATE_LIMIT_WINDOW_SECONDS=0.5 is not valid');
    expect(() => loadProxyConfig([], { ...env, PROXY_RATE_LIMIT_METHODS: 'x=0' })).toThrow('PROXY_RATE_LIMIT_METHODS: x needs from 1');
    expect(() => loadProxyConfig(file({ redisUrl: 6379 }), env)).toThrow('redisUrl must be a string');
    expect(() => loadProxyConfig(file({ redisUrl: 'redis-host:6379' }), env)).toThrow('redisUrl must be a redis:// or rediss:// URL');
    expect(() => loadProxyConfig([], { ...env, PROXY_REDIS_URL: 'redis-host:6379' })).toThrow('redisUrl must be a redis:// or rediss:// URL');
    expect(() => loadProxyConfig(file({ rateLimit: -5 }), env)).toThrow('rateLimit must be a whole number');
    expect(() => loadProxyConfig(file({ rateLimitBurst: 'lots' }), env)).toThrow('rateLimitBurst must be a whole number');
  });
});
