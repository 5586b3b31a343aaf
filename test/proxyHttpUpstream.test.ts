// The proxy with a hosted provider's HTTP URL as its only upstream: the
// stand-in provider (harness/hostedProvider.ts) in front of the devnet, slow
// and with a small cap on requests in flight past which it answers 429. Every
// answer, over HTTP POST and over WebSocket, equals the devnet's own; the 429s
// are waited out, not passed on; subscriptions, which HTTP cannot carry, get a
// JSON-RPC error and the connection lives on.
import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import { getJson } from '../harness/http';
import { startHostedProvider, type HostedProvider } from '../harness/hostedProvider';
import { connectRpc, type RpcClient } from '../harness/rpcClient';
import { createLogger } from '../src/logger';
import { loadProxyConfig } from '../src/proxy/proxyConfig';
import type { RpcProxy } from '../src/proxy/proxyServer';
import { startProxy } from '../src/proxy/startProxy';
import { startDevnet } from './support/devnet';

/** System.Number: a storage item every block has, different at each. */
const SYSTEM_NUMBER = '0x26aa394eea5630e07c48ae0c9558cef702a5c1b19ab7a04f536c519aca4983ac';

let devnet: Devnet;
let manifest: SeedManifest;
let stand: HostedProvider;
let proxy: RpcProxy;
let httpUrl: string;
let wsUrl: string;
let direct: RpcClient;

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  direct = await connectRpc(devnet.wsUrl);
  stand = await startHostedProvider(devnet.wsUrl, { delayMs: 20, maxInFlight: 2, retryAfterSeconds: 0.2 });
  // Through the configuration as an operator gives it: an http:// upstream must be accepted.
  const config = loadProxyConfig([], { PROXY_UPSTREAMS: stand.url, PROXY_PORT: '0', PROXY_LOG_LEVEL: 'silent', PROXY_HEALTH_INTERVAL_MS: '500' });
  const started = await startProxy(config, createLogger('silent'));
  proxy = started.proxy;
  httpUrl = `http://${started.address}`;
  wsUrl = `ws://${started.address}`;
}, 180_000);

afterAll(async () => {
  direct?.close();
  await proxy?.close();
  await stand?.close();
  await devnet?.close();
});

interface Answer {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

async function post(method: string, params: unknown[], id = 1): Promise<Answer> {
  const response = await fetch(httpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  return (await response.json()) as Answer;
}

/** What the devnet answers and what the proxy answers, for the same blocks, all asked at once. */
async function compareBlocks(numbers: number[], ask: (method: string, params: unknown[]) => Promise<Answer>) {
  const errors: unknown[] = [];
  const check = async (method: string, params: unknown[]) => {
    const [expected, got] = await Promise.all([direct.call(method, params), ask(method, params)]);
    if (got.error) errors.push({ method, params, error: got.error });
    else expect(got.result).toEqual(expected);
    return got.result;
  };
  const hashes = (await Promise.all(numbers.map((n) => check('chain_getBlockHash', [n])))) as string[];
  await Promise.all(hashes.flatMap((hash) => [check('chain_getBlock', [hash]), check('state_getStorage', [SYSTEM_NUMBER, hash])]));
  expect(errors).toEqual([]);
}

it('answers over HTTP POST as the devnet does, waiting out the provider 429s', async () => {
  stand.reset();
  const blocks = Array.from({ length: Math.min(12, manifest.head.number) }, (_, i) => i + 1);
  await compareBlocks(blocks, (method, params) => post(method, params));
  // The small cap was met, and what it refused was sent again rather than failed.
  expect(stand.counts.throttled).toBeGreaterThan(0);
  // ... and the proxy's /metrics says so, per upstream (named by host only).
  const metrics = (await getJson(`${httpUrl}/metrics`)).text;
  const total = (name: string) => Number(new RegExp(`^${name}\\{upstream="[^"]*${new URL(stand.url).host}[^"]*"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
  expect(total('proxy_upstream_throttled_total')).toBeGreaterThan(0);
  expect(total('proxy_upstream_retries_total')).toBeGreaterThan(0);
  expect(total('proxy_upstream_http_requests_total')).toBeGreaterThanOrEqual(stand.counts.requests - stand.counts.throttled);
  expect(total('proxy_upstream_batches_refused_total')).toBe(0);
}, 60_000);

it('keeps to the batch size and requests in flight set for HTTP upstreams', async () => {
  // A provider that takes batches of at most 2 calls and counts how many requests it holds at once.
  const strict = await startHostedProvider(devnet.wsUrl, { delayMs: 20, maxBatch: 2 });
  const config = loadProxyConfig([], {
    PROXY_UPSTREAMS: strict.url,
    PROXY_PORT: '0',
    PROXY_LOG_LEVEL: 'silent',
    PROXY_HTTP_MAX_BATCH: '2',
    PROXY_HTTP_MAX_IN_FLIGHT: '1',
  });
  const started = await startProxy(config, createLogger('silent'));
  const url = `http://${started.address}`;
  try {
    const numbers = Array.from({ length: Math.min(12, manifest.head.number) }, (_, i) => i + 1);
    const answers = await Promise.all(
      numbers.map(async (n) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'chain_getBlockHash', params: [n] }),
        });
        return ((await response.json()) as Answer).result;
      }),
    );
    expect(answers).toEqual(await Promise.all(numbers.map((n) => direct.call('chain_getBlockHash', [n]))));
    expect(strict.counts.batchesRefused).toBe(0);
    expect(strict.counts.peakInFlight).toBe(1);
    expect(strict.counts.calls).toBeGreaterThan(strict.counts.requests); // batched, two at a time
  } finally {
    await started.proxy.close();
    await strict.close();
  }
}, 60_000);

it('answers over WebSocket as the devnet does', async () => {
  const client = await connectRpc(wsUrl);
  try {
    const first = Math.min(13, manifest.head.number);
    const blocks = Array.from({ length: Math.max(1, manifest.head.number - first + 1) }, (_, i) => first + i).slice(0, 12);
    let id = 0;
    await compareBlocks(blocks, (method, params) =>
      client.call(method, params).then(
        (result): Answer => ({ id: ++id, result }),
        (error: Error): Answer => ({ id: ++id, error: { code: 0, message: error.message } }),
      ),
    );
  } finally {
    client.close();
  }
}, 60_000);

it('reports itself healthy with its HTTP upstream', async () => {
  const { status, body } = await getJson(`${httpUrl}/health`);
  expect(status).toBe(200);
  const upstreams = (body as { upstreams: { url: string; up: boolean; finalized: number }[] }).upstreams;
  expect(upstreams).toHaveLength(1);
  expect(upstreams[0].up).toBe(true);
  // Finalized height tracked over HTTP by the health checks.
  expect(upstreams[0].finalized).toBeGreaterThanOrEqual(manifest.head.number - 1);
});

it('refuses a subscription with a JSON-RPC error when no upstream can carry one, and the connection lives on', async () => {
  const client = await connectRpc(wsUrl);
  try {
    const refused = await client.call('chain_subscribeNewHeads', []).then(
      () => undefined,
      (error: Error) => JSON.parse(error.message) as { code: number; message: string },
    );
    expect(refused).toEqual({ code: expect.any(Number), message: expect.stringMatching(/subscriptions/i) });
    expect(await client.call('chain_getBlockHash', [1])).toEqual(await direct.call('chain_getBlockHash', [1]));
  } finally {
    client.close();
  }
});

it('holds subscriptions on the WebSocket upstream when HTTP and WebSocket upstreams are mixed', async () => {
  const config = loadProxyConfig([], { PROXY_UPSTREAMS: `${stand.url},${devnet.wsUrl}`, PROXY_PORT: '0', PROXY_LOG_LEVEL: 'silent' });
  const mixed = await startProxy(config, createLogger('silent'));
  const client = await connectRpc(`ws://${mixed.address}`);
  try {
    // Four subscriptions of their own, each placed by a pick of its own: none may land on the HTTP upstream.
    const subscriptions: [string, unknown[]][] = [
      ['chain_subscribeNewHeads', []],
      ['chain_subscribeFinalizedHeads', []],
      ['state_subscribeRuntimeVersion', []],
      ['state_subscribeStorage', [[SYSTEM_NUMBER]]],
    ];
    for (const [method, params] of subscriptions) expect(await client.call(method, params)).toEqual(expect.any(String));
    const [http, ws] = mixed.pool.upstreams;
    expect(http.subscriptions).toBe(0);
    expect(ws.subscriptions).toBeGreaterThan(0);
  } finally {
    client.close();
    await mixed.proxy.close();
  }
});
