import { ConfigError, loadConfig } from '../../src/config';

describe('loadConfig', () => {
  it('defaults to the bundled devnet on loopback', () => {
    expect(loadConfig({})).toMatchObject({ nodeUrl: undefined, host: '127.0.0.1', port: 8080, workers: 1, logLevel: 'info' });
  });

  it("accepts sidecar's variable names", () => {
    const config = loadConfig({
      SAS_SUBSTRATE_URL: 'wss://node.example:443',
      SAS_EXPRESS_PORT: '8081',
      SAS_EXPRESS_BIND_HOST: '0.0.0.0',
      SAS_LOG_LEVEL: 'http',
    });
    expect(config).toMatchObject({ nodeUrl: 'wss://node.example:443', port: 8081, host: '0.0.0.0', logLevel: 'info' });
  });

  it("takes the relay chain's node from its own name or from sidecar's multi-chain list", () => {
    expect(loadConfig({ FASTCAR_RELAY_URL: 'ws://relay:9944' }).relayUrl).toBe('ws://relay:9944');
    const multi = JSON.stringify([
      { url: 'ws://ah:9944', type: 'assethub' },
      { url: 'wss://relay.example', type: 'relay' },
    ]);
    expect(loadConfig({ SAS_SUBSTRATE_MULTI_CHAIN_URL: multi }).relayUrl).toBe('wss://relay.example');
    expect(loadConfig({ SAS_SUBSTRATE_MULTI_CHAIN_URL: JSON.stringify([{ url: 'ws://ah:9944', type: 'assethub' }]) }).relayUrl).toBeUndefined();
    expect(loadConfig({}).relayUrl).toBeUndefined();
  });

  it('reads the stream and extrinsic index settings, with defaults', () => {
    expect(loadConfig({})).toMatchObject({ maxStreams: 1000, streamBufferBytes: 8 * 1024 * 1024, extrinsicIndexBlocks: 14_400 });
    const config = loadConfig({ FASTCAR_MAX_STREAMS: '0', FASTCAR_STREAM_BUFFER_BYTES: '65536', FASTCAR_EXTRINSIC_INDEX_BLOCKS: '0' });
    expect(config).toMatchObject({ maxStreams: 0, streamBufferBytes: 65536, extrinsicIndexBlocks: 0 });
  });

  it('serves /metrics on a port of its own, on loopback unless told otherwise, or not at all', () => {
    expect(loadConfig({})).toMatchObject({ metricsPort: 9100, metricsHost: '127.0.0.1' });
    expect(loadConfig({ FASTCAR_METRICS_PORT: '0', FASTCAR_METRICS_HOST: '0.0.0.0' })).toMatchObject({ metricsPort: 0, metricsHost: '0.0.0.0' });
    expect(loadConfig({ FASTCAR_METRICS_PORT: 'off' }).metricsPort).toBeUndefined();
  });

  it('gives slow clients 10 s for their headers and 60 s for the whole request unless told otherwise', () => {
    expect(loadConfig({})).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000 });
    expect(loadConfig({ FASTCAR_HEADERS_TIMEOUT_MS: '2000', FASTCAR_REQUEST_TIMEOUT_MS: '5000' })).toMatchObject({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 5000,
    });
  });

  it('reads the settings of an http(s) node: the finalized poll, batch size, requests in flight and per second, HTTP/2', () => {
    expect(loadConfig({})).toMatchObject({ finalizedPollMs: 3000, rpcMaxBatch: 100, rpcMaxInFlight: 20, rpcRatePerSecond: 0, rpcHttp2: true });
    const env = {
      FASTCAR_FINALIZED_POLL_MS: '6000',
      FASTCAR_RPC_MAX_BATCH: '25',
      FASTCAR_RPC_MAX_IN_FLIGHT: '8',
      FASTCAR_RPC_RATE_PER_SECOND: '300',
      FASTCAR_RPC_HTTP2: 'false',
    };
    expect(loadConfig(env)).toMatchObject({ finalizedPollMs: 6000, rpcMaxBatch: 25, rpcMaxInFlight: 8, rpcRatePerSecond: 300, rpcHttp2: false });
    expect(() => loadConfig({ FASTCAR_RPC_MAX_IN_FLIGHT: '0' })).toThrow('FASTCAR_RPC_MAX_IN_FLIGHT=0 is not valid');
    expect(() => loadConfig({ FASTCAR_FINALIZED_POLL_MS: 'often' })).toThrow('FASTCAR_FINALIZED_POLL_MS=often is not valid');
  });

  it('prefers its own names over sidecar’s', () => {
    expect(loadConfig({ FASTCAR_PORT: '9000', SAS_EXPRESS_PORT: '8081' }).port).toBe(9000);
  });

  it.each([
    [{ FASTCAR_PORT: '70000' }, 'FASTCAR_PORT=70000 is not valid'],
    [{ SAS_SUBSTRATE_URL: 'localhost:9944' }, 'must start with ws://'],
    [{ SAS_LOG_LEVEL: 'loud' }, 'log level loud'],
    [{ WORKERS: '0' }, 'WORKERS=0 is not valid'],
    [{ FASTCAR_METRICS_PORT: 'on' }, 'FASTCAR_METRICS_PORT=on is not valid: use a whole number from 0 to 65535 or off'],
    [{ FASTCAR_HEADERS_TIMEOUT_MS: '70000' }, 'must not exceed FASTCAR_REQUEST_TIMEOUT_MS'],
    [{ FASTCAR_RELAY_URL: 'relay:9944' }, 'relay node URL relay:9944 must start with ws://'],
    [{ SAS_SUBSTRATE_MULTI_CHAIN_URL: 'ws://relay:9944' }, 'use a JSON array'],
    [{ SAS_SUBSTRATE_MULTI_CHAIN_URL: '{"url":"ws://relay:9944"}' }, 'use a JSON array'],
    [{ FASTCAR_STREAM_BUFFER_BYTES: '1024' }, 'FASTCAR_STREAM_BUFFER_BYTES=1024 is not valid: use a whole number from 65536'],
    [{ FASTCAR_MAX_STREAMS: 'many' }, 'FASTCAR_MAX_STREAMS=many is not valid'],
    [{ FASTCAR_EXTRINSIC_INDEX_BLOCKS: '-1' }, 'FASTCAR_EXTRINSIC_INDEX_BLOCKS=-1 is not valid'],
  ])('rejects %p with a message that says what to do', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
