import { decide } from '../../src/proxy/cachePolicy';
import { loadProxyConfig } from '../../src/proxy/proxyConfig';
import { judge } from '../../src/proxy/resultShapes';

const hash = `0x${'ab'.repeat(32)}`;

describe('proxy cache policy', () => {
  it.each([
    ['chain_getBlock', [hash]],
    ['chain_getHeader', [hash]],
    ['state_getStorage', ['0x26aa', hash]],
    ['state_getMetadata', [hash]],
    ['state_getRuntimeVersion', [hash]],
    ['state_call', ['TransactionPaymentApi_query_info', '0x00', hash]],
    ['payment_queryInfo', ['0x00', hash]],
  ])('caches %s at an explicit hash', (method, params) => {
    expect(decide(method, params).kind).toBe('immutable');
  });

  it.each([
    ['chain_getBlock', []],
    ['chain_getHeader', []],
    ['state_getStorage', ['0x26aa']],
    ['state_call', ['Core_version', '0x']],
    ['chain_getFinalizedHead', []],
    ['state_getStorage', ['0x26aa', 'latest']],
  ])('passes %s about "latest" through, merged but not cached', (method, params) => {
    const decision = decide(method, params);
    expect(decision.kind).toBe('passThrough');
    expect(decision.kind === 'passThrough' && decision.mergeKey).toBeTruthy();
  });

  it('calls a null about a block named by its hash absent (another node may have it), and any other null a plain answer', () => {
    const hash = `0x${'ab'.repeat(32)}`;
    for (const method of ['archive_v1_header', 'archive_v1_body', 'chain_getHeader', 'chain_getBlock']) expect(judge(method, [hash], null)).toBe('absent');
    expect(judge('archive_v1_call', [hash, 'Core_version', '0x'], null)).toBe('absent');
    // No hash named: the node's own head; a storage value that is not there: an answer in itself.
    expect(judge('chain_getHeader', [], null)).toBe('serve');
    expect(judge('state_getStorage', ['0x1234', hash], null)).toBe('serve');
  });

  it("keeps the chain spec's name and properties for good, by either API, and only a well-formed answer", () => {
    for (const method of ['system_chain', 'system_properties', 'chainSpec_v1_chainName', 'chainSpec_v1_properties']) {
      expect(decide(method, []).kind).toBe('immutable');
      expect(decide(method, ['extra']).kind).toBe('passThrough');
    }
    expect(judge('system_chain', [], 'Westend Asset Hub')).toBe('cache');
    expect(judge('system_chain', [], '')).toBe('invalid');
    expect(judge('system_properties', [], { ss58Format: 42 })).toBe('cache');
    expect(judge('system_properties', [], 'x')).toBe('invalid');
    // What can change while the node runs is never kept: its version, its health, its peers.
    for (const method of ['system_version', 'system_health', 'system_peers', 'system_name']) expect(decide(method, []).kind).toBe('passThrough');
  });

  it('caches a block hash by number only as a finalized-number candidate', () => {
    expect(decide('chain_getBlockHash', [12])).toMatchObject({ kind: 'finalizedNumber', number: 12 });
    expect(decide('chain_getBlockHash', []).kind).toBe('passThrough');
  });

  it('caches a list of heights (a window of hashes) as a candidate once its highest height is finalized', () => {
    expect(decide('chain_getBlockHash', [[64, 65, 127]])).toMatchObject({ kind: 'finalizedNumber', number: 127 });
    expect(decide('chain_getBlockHash', [[]]).kind).toBe('passThrough');
    expect(decide('chain_getBlockHash', [[1, -2]]).kind).toBe('passThrough');
    expect(decide('chain_getBlockHash', [[1, 'x']]).kind).toBe('passThrough');
    expect(decide('chain_getBlockHash', [Array.from({ length: 257 }, (_, i) => i)]).kind).toBe('passThrough');
  });

  it('keeps a list of hashes only if it answers every height asked with a hash', () => {
    const asked = [[1, 2]];
    expect(judge('chain_getBlockHash', asked, [hash, hash])).toBe('cache');
    expect(judge('chain_getBlockHash', asked, [hash, null])).toBe('invalid');
    expect(judge('chain_getBlockHash', asked, [hash])).toBe('invalid');
    expect(judge('chain_getBlockHash', asked, hash)).toBe('invalid');
    expect(judge('chain_getBlockHash', [1], [hash])).toBe('invalid');
  });

  it('never merges or caches calls that change something', () => {
    expect(decide('author_submitExtrinsic', ['0x00'])).toEqual({ kind: 'passThrough' });
  });
});

describe('proxy config', () => {
  it('needs upstreams and reads them from the environment', () => {
    expect(() => loadProxyConfig([], {})).toThrow('PROXY_UPSTREAMS');
    expect(loadProxyConfig([], { PROXY_UPSTREAMS: 'ws://a:9944, ws://b:9944', PROXY_PORT: '7000' })).toMatchObject({
      upstreams: ['ws://a:9944', 'ws://b:9944'],
      port: 7000,
    });
    // A hosted provider's HTTP(S) URL is an upstream too; anything else is refused.
    expect(loadProxyConfig([], { PROXY_UPSTREAMS: 'https://provider.example/v1/key, wss://b:9944, http://c:9933' }).upstreams).toEqual([
      'https://provider.example/v1/key',
      'wss://b:9944',
      'http://c:9933',
    ]);
    expect(() => loadProxyConfig([], { PROXY_UPSTREAMS: 'ftp://a' })).toThrow('ws://, wss://, http:// or https://');
    expect(() => loadProxyConfig([], { PROXY_UPSTREAMS: 'node-a:9944' })).toThrow('must be a');
  });
});
