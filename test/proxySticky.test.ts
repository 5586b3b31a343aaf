// Sticky routing and consistent hashing in the proxy, in front of two chopsticks
// processes serving the same seeded chain (processes of their own: a call sent
// to the wrong one finds no follow there, and one can end as a node does): a
// chainHead follow and every call
// naming it stay on the node holding it, and end with `stop` when that node is
// lost; calls naming a follow the client does not hold get the spec's answers;
// archive_v1 is served and cached; in `hash` mode a client address stays on the
// node rendezvous hashing gives it.
import { blake2AsHex } from '@polkadot/util-crypto';

import { readManifest } from '../devnet/cli';
import type { SeedManifest } from '../devnet/seed';
import { createLogger } from '../src/logger';
import type { RpcProxy } from '../src/proxy/proxyServer';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import { rendezvousPick } from '../src/proxy/rendezvous';
import { startProxy } from '../src/proxy/startProxy';
import type { UpstreamPool } from '../src/proxy/upstreamPool';
import type { Upstream } from '../src/proxy/upstream';
import { startDevnetProcess, type DevnetProcess } from '../harness/devnetProcess';
import { devnetSigner } from './support/signer';
import { connectSubscriber, type SubscriptionClient } from './support/subscriptionClient';

let nodes: DevnetProcess[];
let manifest: SeedManifest;
let proxy: RpcProxy;
let pool: UpstreamPool;
let hashed: { proxy: RpcProxy; pool: UpstreamPool; httpUrl: string; wsUrl: string };
let httpUrl: string;
let wsUrl: string;
const clients: SubscriptionClient[] = [];

// No tip cache: the proxy then follows no head of its own, and a node's subscriptions are the clients' alone.
const settings = { port: 0, timeoutMs: 20_000, healthIntervalMs: 300, logLevel: 'silent', tipCacheMaxBytes: 0 };

beforeAll(async () => {
  nodes = await Promise.all([startDevnetProcess({ env: { LOG_LEVEL: 'error' } }), startDevnetProcess({ env: { LOG_LEVEL: 'error' } })]);
  manifest = readManifest() as SeedManifest;
  const urls = nodes.map((node) => node.wsUrl);
  const started = await startProxy(proxyConfigFor(urls, settings), createLogger('silent'));
  ({ proxy, pool } = started);
  httpUrl = `http://${started.address}`;
  wsUrl = `ws://${started.address}`;
  // Behind one trusted balancer: the client address is what it appends to X-Forwarded-For.
  const other = await startProxy(proxyConfigFor(urls, { ...settings, balance: 'hash', upstreamWeights: [3, 1], trustedProxies: 1 }), createLogger('silent'));
  hashed = { proxy: other.proxy, pool: other.pool, httpUrl: `http://${other.address}`, wsUrl: `ws://${other.address}` };
  // The proxy serves once one node answers; these tests compare what both nodes say.
  await until(() => [pool, other.pool].every(({ upstreams }) => upstreams.every((upstream) => upstream.finalizedNumber >= 0)));
}, 240_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all([proxy?.close(), hashed?.proxy.close()]);
  await Promise.all((nodes ?? []).map((node) => node.close()));
});

async function subscriber(url = wsUrl, headers: Record<string, string> = {}): Promise<SubscriptionClient> {
  const client = await connectSubscriber(url, headers);
  clients.push(client);
  return client;
}

async function rpc(url: string, method: string, params: unknown[] = [], headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

const callsAt = (upstreams: Upstream[]) => upstreams.map((upstream) => upstream.calls);
const subscriptionsAt = () => pool.upstreams.map((upstream) => upstream.subscriptions);
/** The node that took the subscription opened since `before`. */
const holderSince = (before: number[]) => pool.upstreams.findIndex((upstream, i) => upstream.subscriptions > before[i]);
const since = (before: number[], upstreams: Upstream[]) => upstreams.map((upstream, i) => upstream.calls - before[i]);

interface FollowEvent {
  event: string;
  operationId?: string;
  finalizedBlockHashes?: string[];
  [field: string]: unknown;
}

/** twox128("System") ++ twox128("Number"): the block number in storage. */
const SYSTEM_NUMBER = '0x26aa394eea5630e07c48ae0c9558cef702a5c1b19ab7a04f536c519aca4983ac';

async function follow(client: SubscriptionClient): Promise<{ id: string; finalized: string }> {
  const id = await client.call<string>('chainHead_v1_follow', [true]);
  const initialized = await client.next<FollowEvent>(id, (event) => event.event === 'initialized');
  return { id, finalized: initialized.finalizedBlockHashes!.at(-1)! };
}

/** Runtime calls in chopsticks' wasm are slow on a busy machine: the operations are waited for together, once all are started. */
const operationDone = (client: SubscriptionClient, id: string, operationId: string, done: string) =>
  client.next<FollowEvent>(id, (event) => event.operationId === operationId && (event.event === done || event.event === 'operationError'), 90_000);

it('sends a follow and 50 body, storage, call and header calls naming it all to the node holding it', async () => {
  const client = await subscriber();
  const before = callsAt(pool.upstreams);
  const held = subscriptionsAt();
  const { id, finalized } = await follow(client);
  const holder = holderSince(held);
  expect(holder).toBeGreaterThanOrEqual(0);
  const expectedHeader = ((await rpc(httpUrl, 'chain_getHeader', [finalized])) as { result: { number: string } }).result;
  const operations: [string, string][] = [];
  for (let i = 0; i < 50; i++) {
    switch (i % 4) {
      case 0: {
        const header = await client.call<string>('chainHead_v1_header', [id, finalized]);
        expect(blake2AsHex(header)).toBe(finalized);
        break;
      }
      case 1: {
        const started = await client.call<{ result: string; operationId: string }>('chainHead_v1_body', [id, finalized]);
        expect(started.result).toBe('started');
        operations.push([started.operationId, 'operationBodyDone']);
        break;
      }
      case 2: {
        const started = await client.call<{ result: string; operationId: string }>('chainHead_v1_storage', [
          id,
          finalized,
          [{ key: SYSTEM_NUMBER, type: 'value' }],
          null,
        ]);
        expect(started.result).toBe('started');
        operations.push([started.operationId, 'operationStorageDone']);
        break;
      }
      default: {
        const started = await client.call<{ result: string; operationId: string }>('chainHead_v1_call', [id, finalized, 'Core_version', '0x']);
        expect(started.result).toBe('started');
        operations.push([started.operationId, 'operationCallDone']);
      }
    }
  }
  const done = await Promise.all(operations.map(([operationId, event]) => operationDone(client, id, operationId, event)));
  expect(done.filter((event) => event.event === 'operationError')).toEqual([]);
  // Every operation's events came back on this client's follow, and they are about this block.
  const items = client.events(id).filter((event) => (event as FollowEvent).event === 'operationStorageItems') as { items: { value: string }[] }[];
  expect(items.length).toBeGreaterThan(0);
  const numberLe = Buffer.from(items[0].items[0].value.slice(2), 'hex').readUInt32LE(0);
  expect(numberLe).toBe(parseInt(expectedHeader.number, 16));
  await client.call('chainHead_v1_unpin', [id, finalized]);
  const calls = since(before, pool.upstreams);
  // The 50 calls and the unpin at the holder, nothing at the other node (chain_getHeader above went to either).
  expect(calls[holder]).toBeGreaterThanOrEqual(51);
  expect(calls[1 - holder]).toBeLessThanOrEqual(1);
  expect(calls[0] + calls[1]).toBe(52);
  expect(await client.call('chainHead_v1_unfollow', [id])).toBeNull();
  expect(subscriptionsAt()).toEqual(held);
  client.close();
}, 180_000);

it('answers calls naming a follow the client does not hold as the spec says, without a node', async () => {
  const client = await subscriber();
  const other = await subscriber();
  const { id, finalized } = await follow(other); // another connection's follow is not this one's
  const before = callsAt(pool.upstreams);
  for (const stranger of ['0x0000000000000000', id, 42]) {
    expect(await client.request('chainHead_v1_body', [stranger, finalized])).toMatchObject({ result: { result: 'limitReached' } });
    expect(await client.request('chainHead_v1_call', [stranger, finalized, 'Core_version', '0x'])).toMatchObject({ result: { result: 'limitReached' } });
    expect(await client.request('chainHead_v1_storage', [stranger, finalized, [{ key: SYSTEM_NUMBER, type: 'value' }], null])).toMatchObject({
      result: { result: 'limitReached' },
    });
    for (const method of ['chainHead_v1_header', 'chainHead_v1_unpin', 'chainHead_v1_continue', 'chainHead_v1_stopOperation', 'chainHead_v1_unfollow']) {
      expect([method, await client.request(method, [stranger, finalized])]).toEqual([method, expect.objectContaining({ result: null })]);
    }
  }
  expect((await client.request('transactionWatch_v1_unwatch', ['0x01'])).error).toMatchObject({ code: -32602 });
  expect(await client.request('archive_v1_stopStorage', ['0x01'])).toMatchObject({ result: null });
  // Over HTTP there is no follow to hold.
  expect(await rpc(httpUrl, 'chainHead_v1_body', [id, finalized])).toMatchObject({ result: { result: 'limitReached' } });
  expect(since(before, pool.upstreams)).toEqual([0, 0]);
  // The other connection's follow is untouched by all this.
  expect(await other.call<string>('chainHead_v1_header', [id, finalized])).toMatch(/^0x/);
});

it('serves archive_v1 and keeps what the spec makes immutable', async () => {
  const height = manifest.blocks.transfers;
  const genesis = ((await rpc(httpUrl, 'chain_getBlockHash', [0])) as { result: string }).result;
  const hashOfHeight = ((await rpc(httpUrl, 'chain_getBlockHash', [height])) as { result: string }).result;
  const ask = async (method: string, params: unknown[]) => {
    const before = callsAt(pool.upstreams);
    const first = await rpc(httpUrl, method, params);
    const second = await rpc(httpUrl, method, params);
    expect(second).toEqual(first);
    return { result: first.result, nodeCalls: since(before, pool.upstreams).reduce((a, b) => a + b, 0) };
  };
  expect(await ask('archive_v1_genesisHash', [])).toEqual({ result: genesis, nodeCalls: 1 });
  expect(await ask('archive_v1_hashByHeight', [height])).toEqual({ result: [hashOfHeight], nodeCalls: 1 });
  const header = await ask('archive_v1_header', [hashOfHeight]);
  expect(header.nodeCalls).toBe(1);
  expect(blake2AsHex(header.result as string)).toBe(hashOfHeight);
  const body = await ask('archive_v1_body', [hashOfHeight]);
  expect(body.nodeCalls).toBe(1);
  const block = (await rpc(httpUrl, 'chain_getBlock', [hashOfHeight])) as { result: { block: { extrinsics: string[] } } };
  expect(body.result).toEqual(block.result.block.extrinsics);
  const call = await ask('archive_v1_call', [hashOfHeight, 'Core_version', '0x']);
  expect(call).toMatchObject({ result: { success: true, value: expect.stringMatching(/^0x/) }, nodeCalls: 1 });
  // A block the nodes do not have: each of the two asked (one might have it), then null passed on, never kept.
  const missing = `0x${'ab'.repeat(32)}`;
  expect(await ask('archive_v1_header', [missing])).toEqual({ result: null, nodeCalls: 4 });
  // A storage query is a subscription on one node: its events come back, and it ends with storageDone (the client's share given back).
  const client = await subscriber();
  const held = subscriptionsAt();
  const query = await client.call<string>('archive_v1_storage', [hashOfHeight, [{ key: SYSTEM_NUMBER, type: 'value' }], null]);
  await client.next<FollowEvent>(query, (event) => event.event === 'storageDone');
  const item = client.events(query).find((event) => (event as FollowEvent).event === 'storage') as { key: string; value: string };
  expect(item.key).toBe(SYSTEM_NUMBER);
  expect(Buffer.from(item.value.slice(2), 'hex').readUInt32LE(0)).toBe(height);
  await until(() => subscriptionsAt().every((count, i) => count === held[i]));
  expect(await client.call('archive_v1_stopStorage', [query])).toBeNull();
  client.close();
  // The finalized height is the proxy's own answer: the lowest of the nodes', never going down.
  const finalized = (await rpc(httpUrl, 'archive_v1_finalizedHeight')).result as number;
  expect(finalized).toBe(Math.min(...pool.upstreams.map((upstream) => upstream.finalizedNumber)));
  expect(finalized).toBeGreaterThanOrEqual(manifest.head.number);
});

it('keeps each client address on the node rendezvous hashing gives it, by the weights', async () => {
  const upstreams = hashed.pool.upstreams;
  const addresses = Array.from({ length: 24 }, (_, i) => `198.51.100.${i + 1}`);
  const expected = addresses.map((address) =>
    upstreams.indexOf(
      rendezvousPick(
        address,
        upstreams,
        (u) => u.url,
        (u) => u.weight,
      )!,
    ),
  );
  expect(new Set(expected).size).toBe(2); // both nodes have clients among these
  for (let round = 0; round < 2; round++) {
    for (const [i, address] of addresses.entries()) {
      const before = callsAt(upstreams);
      // Not cacheable: each goes to a node.
      const answer = await rpc(hashed.httpUrl, 'system_health', [], { 'X-Forwarded-For': address });
      expect(answer.error).toBeUndefined();
      const landed = since(before, upstreams).findIndex((calls) => calls > 0);
      expect([address, landed]).toEqual([address, expected[i]]);
    }
  }
}, 60_000);

/** An address that hash mode places on upstream `index` of the hashed proxy. */
function addressOn(index: number): string {
  const upstreams = hashed.pool.upstreams;
  for (let i = 1; i < 255; i++) {
    const address = `203.0.113.${i}`;
    if (
      rendezvousPick(
        address,
        upstreams,
        (u) => u.url,
        (u) => u.weight,
      ) === upstreams[index]
    )
      return address;
  }
  throw new Error(`no address hashes to upstream ${index}`);
}

it('sends transaction_v1_stop to the node broadcasting the transaction', async () => {
  for (let round = 0; round < 6; round++) {
    const before = callsAt(pool.upstreams);
    // Not a valid transaction: a node broadcasts nothing, but it opens the operation all the same.
    const operationId = (await rpc(httpUrl, 'transaction_v1_broadcast', ['0x00'])).result;
    expect(typeof operationId).toBe('string');
    const broadcaster = since(before, pool.upstreams).findIndex((calls) => calls > 0);
    const mid = callsAt(pool.upstreams);
    expect(await rpc(httpUrl, 'transaction_v1_stop', [operationId])).toMatchObject({ result: null });
    expect(since(mid, pool.upstreams)[broadcaster]).toBe(1);
  }
});

it('ends a follow with `stop` when its node is lost, and a new follow works on the node left', async () => {
  const client = await subscriber();
  const watcher = await subscriber();
  const held = subscriptionsAt();
  const { id, finalized } = await follow(client);
  const holder = holderSince(held);
  // A second follow on the same connection, placed by the same rule: both on one node or one on each.
  const heldOne = subscriptionsAt();
  const second = await follow(client);
  const secondHolder = holderSince(heldOne);
  const survivor = 1 - holder;
  // Through the hash-mode proxy, a client placed on that node: its follow and its watched transaction go there too.
  const placed = await subscriber(hashed.wsUrl, { 'X-Forwarded-For': addressOn(holder) });
  const placedFollow = await follow(placed);
  expect(hashed.pool.upstreams[holder].subscriptions).toBe(1);
  const signer = await devnetSigner(nodes[survivor].wsUrl);
  const transfer = await signer.transfer(10n ** 10n);
  await signer.close();
  const watch = await placed.call<string>('author_submitAndWatchExtrinsic', [transfer]);
  // Substrate says "ready", chopsticks {"ready":null}: in the pool, not in a block (the devnet builds blocks when told).
  await placed.next<unknown>(watch, (status) => status === 'ready' || (typeof status === 'object' && status !== null && 'ready' in status));
  expect(hashed.pool.upstreams[holder].subscriptions).toBe(2);
  const lostBefore = await metric('proxy_sticky_lost_total');
  // Every follow at that node ends: these two and any other test's still open there.
  const heldThere = pool.upstreams[holder].subscriptions;
  await nodes[holder].close();
  const stop = await client.next<FollowEvent>(id, (event) => event.event === 'stop');
  expect(stop).toEqual({ event: 'stop' });
  // The other follow lives on if its node does.
  if (secondHolder === holder) expect(await client.next<FollowEvent>(second.id, (event) => event.event === 'stop')).toEqual({ event: 'stop' });
  else expect(await client.call<string>('chainHead_v1_header', [second.id, second.finalized])).toMatch(/^0x/);
  // Nothing after the stop, and the follow is stale: the spec's answers, from no node.
  const afterStop = client.events(id).slice(client.events(id).indexOf(stop) + 1);
  expect(afterStop).toEqual([]);
  expect(await client.request('chainHead_v1_body', [id, finalized])).toMatchObject({ result: { result: 'limitReached' } });
  expect(await client.request('chainHead_v1_header', [id, finalized])).toMatchObject({ result: null });
  expect(await metric('proxy_sticky_lost_total')).toBe(lostBefore + heldThere);
  expect(pool.upstreams[holder].subscriptions).toBe(0);
  // The hashed client's follow stops, and its transaction watch ends as a node would end it: dropped.
  expect(await placed.next<FollowEvent>(placedFollow.id, (event) => event.event === 'stop')).toEqual({ event: 'stop' });
  expect(await placed.next(watch, (status) => status === 'dropped')).toBe('dropped');
  expect(placed.events(watch).at(-1)).toBe('dropped');
  expect(hashed.pool.upstreams[holder].subscriptions).toBe(0);
  // A new follow lands on the node left.
  const onSurvivor = pool.upstreams[survivor].subscriptions;
  const again = await follow(watcher);
  expect(pool.upstreams[survivor].subscriptions).toBe(onSurvivor + 1);
  expect(await watcher.call<string>('chainHead_v1_header', [again.id, again.finalized])).toMatch(/^0x/);
}, 120_000);

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not so within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${httpUrl}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}
