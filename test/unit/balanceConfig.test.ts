// The proxy's balancing settings as an operator writes them: the mode, a
// weight per upstream, and what is refused with a line that says why.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadProxyConfig } from '../../src/proxy/proxyConfig';

const env = { PROXY_UPSTREAMS: 'ws://a:9944,ws://b:9944,https://c.example/key' };

it('places calls by power of two choices unless told to hash client addresses', () => {
  expect(loadProxyConfig([], env)).toMatchObject({ balance: 'p2c', upstreamWeights: [], maxFollowsPerUpstreamConnection: 4 });
  expect(loadProxyConfig([], { ...env, PROXY_BALANCE: 'hash', PROXY_UPSTREAM_WEIGHTS: '3, 1,0.5' })).toMatchObject({
    balance: 'hash',
    upstreamWeights: [3, 1, 0.5],
  });
});

it('refuses a mode it does not know, and weights that are not one positive number per upstream', () => {
  expect(() => loadProxyConfig([], { ...env, PROXY_BALANCE: 'random' })).toThrow('balance must be one of p2c, hash');
  expect(() => loadProxyConfig([], { ...env, PROXY_UPSTREAM_WEIGHTS: '1,2' })).toThrow('lists 2 weights for 3 upstreams');
  for (const weights of ['1,0,1', '1,-2,1', '1,x,1', '1,5000,1']) {
    expect(() => loadProxyConfig([], { ...env, PROXY_UPSTREAM_WEIGHTS: weights })).toThrow('upstreamWeights must be a list of numbers above 0');
  }
  expect(() => loadProxyConfig([], { ...env, PROXY_MAX_FOLLOWS_PER_UPSTREAM_CONNECTION: '0' })).toThrow('at least 1');
});

it('takes the mode and weights from the config file, held to the same checks', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'fastcar-balance-')), 'proxy.json');
  writeFileSync(path, JSON.stringify({ balance: 'hash', upstreamWeights: [2, 1, 1] }));
  expect(loadProxyConfig(['--config', path], env)).toMatchObject({ balance: 'hash', upstreamWeights: [2, 1, 1] });
  writeFileSync(path, JSON.stringify({ balance: 'hash', upstreamWeights: ['2', 1, 1] }));
  expect(() => loadProxyConfig(['--config', path], env)).toThrow('upstreamWeights must be a list');
});
