// The caching JSON-RPC proxy in front of two chopsticks processes serving the
// same seeded chain.
import { WebSocket } from 'ws';

import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import { createLogger } from '../src/logger';
import type { RpcProxy } from '../src/proxy/proxyServer';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import { startProxy } from '../src/proxy/startProxy';
import type { UpstreamPool } from '../src/proxy/upstreamPool';
import { startDevnet } from './support/devnet';
import { getJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';

let nodeA: Devnet;
let nodeB: Devnet;
let manifest: SeedManifest;
let proxy: RpcProxy;
let pool: UpstreamPool;
let httpUrl: string;
let wsUrl: string;

beforeAll(async () => {
  const [a, b] = await Promise.all([startDevnet(), startDevnet()]);
  [nodeA, nodeB, manifest] = [a.devnet, b.devnet, a.manifest];
  const started = await startProxy(
    proxyConfigFor([nodeA.wsUrl, nodeB.wsUrl], { port: 0, maxConcurrentPerUpstream: 64, timeoutMs: 20_000, healthIntervalMs: 500, logLevel: 'silent' }),
    createLogger('silent'),
  );
  ({ proxy, pool } = started);
  httpUrl = `http://${started.address}`;
  wsUrl = `ws://${started.address}`;
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all([nodeA?.close(), nodeB?.close()]);
});

async function rpc(body: unknown): Promise<unknown> {
  const response = await fetch(httpUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return response.json();
}

const upstreamCalls = () => pool.upstreams.reduce((sum, upstream) => sum + upstream.calls, 0);

it('answers a call at an explicit block hash once from upstream, then from its cache', async () => {
  const { result: hash } = (await rpc({ jsonrpc: '2.0', id: 1, method: 'chain_getBlockHash', params: [manifest.blocks.transfers] })) as { result: string };
  const before = upstreamCalls();
  const first = await rpc({ jsonrpc: '2.0', id: 2, method: 'chain_getBlock', params: [hash] });
  const second = await rpc({ jsonrpc: '2.0', id: 3, method: 'chain_getBlock', params: [hash] });
  expect(upstreamCalls() - before).toBe(1);
  expect((second as { result: unknown }).result).toEqual((first as { result: unknown }).result);
  expect(second).toMatchObject({ jsonrpc: '2.0', id: 3 });
});

it('takes batches, keeps ids, and passes JSON-RPC errors back', async () => {
  const answers = (await rpc([
    { jsonrpc: '2.0', id: 'a', method: 'chain_getBlockHash', params: [0] },
    { jsonrpc: '2.0', id: 7, method: 'no_suchMethod', params: [] },
    { jsonrpc: '2.0', id: 'c', method: 'chain_getHeader', params: [] },
  ])) as { id: unknown; result?: unknown; error?: { code: number; message: string } }[];
  expect(answers.map((answer) => answer.id)).toEqual(['a', 7, 'c']);
  expect(answers[0].result).toMatch(/^0x[0-9a-f]{64}$/);
  expect(answers[1].error).toEqual({ code: expect.any(Number), message: expect.any(String) });
  expect(answers[2].result).toMatchObject({ number: expect.any(String) });
  expect(await rpc('not json')).toMatchObject({ error: { code: -32600 } });
});

it('merges identical calls that are in flight together into one upstream call', async () => {
  const before = upstreamCalls();
  const batch = Array.from({ length: 10 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'chain_getHeader', params: [] }));
  const answers = (await rpc(batch)) as { result: { number: string } }[];
  expect(new Set(answers.map((answer) => answer.result.number)).size).toBe(1);
  expect(upstreamCalls() - before).toBe(1);
});

it('gives the REST service the same answers as the node does directly', async () => {
  const [direct, proxied] = await Promise.all([startFastcarOn(nodeA.wsUrl), startFastcarOn(wsUrl)]);
  try {
    for (const n of [manifest.blocks.batches, manifest.blocks.feeInAsset, manifest.blocks.big, 0]) {
      const [a, b] = await Promise.all([getJson(`${direct.url}/blocks/${n}`), getJson(`${proxied.url}/blocks/${n}`)]);
      expect(b.status).toBe(200);
      expect(b.body).toEqual(a.body);
    }
  } finally {
    await Promise.all([direct.close(), proxied.close()]);
  }
}, 120_000);

it('shares one upstream subscription between clients', async () => {
  const open = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(wsUrl);
      socket.once('open', () => resolve(socket));
      socket.once('error', reject);
    });
  const subscribe = (socket: WebSocket) =>
    new Promise<{ subscription: string; head: { number: string } }>((resolve) => {
      let subscription = '';
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { id?: number; result?: string; params?: { subscription: string; result: { number: string } } };
        if (message.id === 1) subscription = message.result!;
        else if (message.params && message.params.subscription === subscription) resolve({ subscription, head: message.params.result });
      });
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'chain_subscribeFinalizedHeads', params: [] }));
    });
  const [first, second] = await Promise.all([open(), open()]);
  try {
    const before = upstreamCalls();
    const a = await subscribe(first);
    const callsForFirst = upstreamCalls() - before;
    const b = await subscribe(second);
    expect(b.head.number).toBe(a.head.number);
    expect(a.subscription).not.toBe(b.subscription);
    expect(upstreamCalls() - before).toBe(callsForFirst); // the second client cost nothing upstream
  } finally {
    first.close();
    second.close();
  }
});

it('keeps answering every request when one upstream stops in the middle of traffic', async () => {
  const answers: unknown[] = [];
  let stopped = false;
  for (let i = 0; i < 120; i++) {
    if (i === 40) {
      await nodeA.close();
      stopped = true;
    }
    // Not cacheable: every one goes upstream.
    const batch = [
      { jsonrpc: '2.0', id: `${i}-head`, method: 'chain_getHeader', params: [] },
      { jsonrpc: '2.0', id: `${i}-final`, method: 'chain_getFinalizedHead', params: [] },
    ];
    answers.push(...((await rpc(batch)) as unknown[]));
  }
  expect(stopped).toBe(true);
  const failures = answers.filter((answer) => (answer as { error?: unknown }).error);
  expect(failures).toEqual([]);
  expect(answers).toHaveLength(240);
}, 120_000);

it('refuses methods that change the node: the devnet head does not move', async () => {
  const head = async () => ((await rpc({ jsonrpc: '2.0', id: 1, method: 'chain_getHeader', params: [] })) as { result: { number: string } }).result.number;
  const before = await head();
  for (const method of ['dev_newBlock', 'dev_setStorage', 'dev_setHead', 'author_rotateKeys']) {
    const answer = (await rpc({ jsonrpc: '2.0', id: 2, method, params: method === 'dev_setStorage' ? [{}] : [] })) as { error?: { code: number } };
    expect([method, answer.error?.code]).toEqual([method, -32601]);
  }
  expect(await head()).toBe(before);
  // The node's own list of methods, as the proxy passes it on, names none of them.
  const { result } = (await rpc({ jsonrpc: '2.0', id: 3, method: 'rpc_methods', params: [] })) as { result: { methods: string[] } };
  expect(result.methods).toContain('chain_getBlock');
  expect(result.methods.filter((name) => /^dev_|rotateKeys/.test(name))).toEqual([]);
});
