// The caching proxy in front of two real nodes (polkadot-omni-node) served from the same
// seeded chain: they share its blocks and then each builds its own, so a block above the seeded
// head is known to one node only. A chainHead follow and every call naming it stay on the node
// holding it (a call sent to the other would name a follow and blocks it never had); the node's
// own limit of follows on one connection is met by spreading them over connections; archive_v1
// answers are kept; reads of "latest" state are answered at the tip from the node that has it;
// and a node killed under load ends its follows with `stop` while every other client's calls
// are answered.
import '../../devnet/quiet';
import { blake2AsHex } from '@polkadot/util-crypto';

import type { SeedManifest } from '../../devnet/seed';
import { nodeCall, serveRealChain, type ServedRealChain } from '../../devnet/realNode';
import { createLogger } from '../../src/logger';
import { proxyConfigFor } from '../../src/proxy/proxyConfig';
import type { RpcProxy } from '../../src/proxy/proxyServer';
import { startProxy } from '../../src/proxy/startProxy';
import type { UpstreamPool } from '../../src/proxy/upstreamPool';
import { connectSubscriber, type SubscriptionClient } from '../support/subscriptionClient';

/** A block every three seconds: the tip moves, slowly enough to count calls between moves. */
const BLOCK_TIME_MS = 3000;
/** twox128("System") ++ twox128("Number") and ++ twox128("ParentHash"). */
const SYSTEM_NUMBER = '0x26aa394eea5630e07c48ae0c9558cef702a5c1b19ab7a04f536c519aca4983ac';
const SYSTEM_PARENT_HASH = '0x26aa394eea5630e07c48ae0c9558cef78a42f33323cb5ced3b44dd825fda9fcc';

let nodes: ServedRealChain[];
let manifest: SeedManifest;
let proxy: RpcProxy;
let pool: UpstreamPool;
let httpUrl: string;
let wsUrl: string;
const clients: SubscriptionClient[] = [];

beforeAll(async () => {
  // One after the other: each compiles the runtime at start.
  const first = await serveRealChain({ blockTimeMs: BLOCK_TIME_MS, startTimeoutMs: 300_000 });
  const second = await serveRealChain({ blockTimeMs: BLOCK_TIME_MS, startTimeoutMs: 300_000 });
  nodes = [first, second];
  manifest = first.manifest;
  const started = await startProxy(
    proxyConfigFor(
      nodes.map((served) => served.node.wsUrl),
      { port: 0, timeoutMs: 20_000, healthIntervalMs: 300, logLevel: 'silent', maxLagBlocks: 1000 },
    ),
    createLogger('silent'),
  );
  ({ proxy, pool } = started);
  httpUrl = `http://${started.address}`;
  wsUrl = `ws://${started.address}`;
}, 660_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await proxy?.close();
  await Promise.all((nodes ?? []).map((served) => served.close()));
});

async function subscriber(url = wsUrl): Promise<SubscriptionClient> {
  const client = await connectSubscriber(url);
  clients.push(client);
  return client;
}

type Answer = { id?: number; result?: unknown; error?: { code: number; message: string } };

async function rpc<T = Answer>(body: unknown, url = httpUrl): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.json()) as T;
}

const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });
const callsAt = () => pool.upstreams.map((upstream) => upstream.calls);
const since = (before: number[]) => pool.upstreams.map((upstream, i) => upstream.calls - before[i]);
const subscriptionsAt = () => pool.upstreams.map((upstream) => upstream.subscriptions);

interface FollowEvent {
  event: string;
  operationId?: string;
  finalizedBlockHashes?: string[];
  [field: string]: unknown;
}

async function follow(client: SubscriptionClient): Promise<{ id: string; finalized: string }> {
  const id = await client.call<string>('chainHead_v1_follow', [true]);
  const initialized = await client.next<FollowEvent>(id, (event) => event.event === 'initialized', 60_000);
  return { id, finalized: initialized.finalizedBlockHashes!.at(-1)! };
}

/** Which node has the block: above the seeded head, one only. */
async function holdersOf(hash: string): Promise<number[]> {
  const found = await Promise.all(nodes.map((served) => nodeCall<unknown>(served.node.httpUrl, 'chain_getHeader', [hash])));
  return found.flatMap((header, i) => (header ? [i] : []));
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not so within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const heightOf = (value: unknown) => Buffer.from(String(value).slice(2), 'hex').readUInt32LE(0);

it('the two nodes share the seeded blocks and build their own above them', async () => {
  const seeded = await Promise.all(nodes.map((served) => nodeCall<string>(served.node.httpUrl, 'chain_getBlockHash', [manifest.head.number])));
  expect(seeded).toEqual([manifest.head.hash, manifest.head.hash]);
  await until(
    async () =>
      (await Promise.all(nodes.map((served) => nodeCall<string | null>(served.node.httpUrl, 'chain_getBlockHash', [manifest.head.number + 2])))).every(Boolean),
    'both nodes past the seeded head',
    60_000,
  );
  const above = await Promise.all(nodes.map((served) => nodeCall<string>(served.node.httpUrl, 'chain_getBlockHash', [manifest.head.number + 2])));
  expect(above[0]).not.toBe(above[1]);
}, 90_000);

it('holds a follow and 40 calls naming it to the node that has it, on blocks only that node has', async () => {
  const client = await subscriber();
  const held = subscriptionsAt();
  const before = callsAt();
  const { id, finalized } = await follow(client);
  const holder = subscriptionsAt().findIndex((count, i) => count > held[i]);
  expect(holder).toBeGreaterThanOrEqual(0);
  // The finalized block the follow began at is the holder's own (above the seeded head): the other node never had it.
  expect(await holdersOf(finalized)).toEqual([holder]);
  const operations: [string, string][] = [];
  for (let i = 0; i < 40; i++) {
    const kind = i % 4;
    if (kind === 0) {
      expect(blake2AsHex(await client.call<string>('chainHead_v1_header', [id, finalized]))).toBe(finalized);
      continue;
    }
    const [method, params, done] = (
      [
        ['chainHead_v1_body', [id, finalized], 'operationBodyDone'],
        ['chainHead_v1_storage', [id, finalized, [{ key: SYSTEM_NUMBER, type: 'value' }], null], 'operationStorageDone'],
        ['chainHead_v1_call', [id, finalized, 'Core_version', '0x'], 'operationCallDone'],
      ] as const
    )[kind - 1];
    const started = await client.call<{ result: string; operationId: string }>(method, [...params]);
    expect([method, started.result]).toEqual([method, 'started']);
    operations.push([started.operationId, done]);
  }
  const done = await Promise.all(
    operations.map(([operationId, event]) =>
      client.next<FollowEvent>(id, (e) => e.operationId === operationId && (e.event === event || e.event === 'operationError'), 60_000),
    ),
  );
  expect(done.filter((event) => event.event === 'operationError')).toEqual([]);
  const stored = client.events(id).find((event) => (event as FollowEvent).event === 'operationStorageItems') as { items: { value: string }[] };
  const header = await nodeCall<{ number: string }>(nodes[holder].node.httpUrl, 'chain_getHeader', [finalized]);
  expect(heightOf(stored.items[0].value)).toBe(Number.parseInt(header.number, 16));
  const calls = since(before);
  expect(calls[holder]).toBeGreaterThanOrEqual(40);
  expect(calls[1 - holder]).toBe(0);
  expect(await client.call('chainHead_v1_unfollow', [id])).toBeNull();
  await until(() => subscriptionsAt().every((count, i) => count === held[i]), 'the follow given back');
}, 180_000);

it('meets the node limit of four follows on a connection: the node refuses a fifth with -32800, the proxy opens another connection for it', async () => {
  // The node itself: four follows on one connection, a fifth refused.
  const direct = await subscriber(nodes[0].node.wsUrl);
  for (let i = 0; i < 4; i++) await follow(direct);
  expect((await direct.request('chainHead_v1_follow', [false])).error).toEqual({
    code: -32800,
    message: 'Maximum number of chainHead_follow has been reached',
  });
  direct.close();
  // Through the proxy: ten follows of one client, each answered and usable, no connection to a node holding more than four.
  const client = await subscriber();
  const follows = [];
  for (let i = 0; i < 10; i++) follows.push(await follow(client));
  for (const { id, finalized } of follows) expect(blake2AsHex(await client.call<string>('chainHead_v1_header', [id, finalized]))).toBe(finalized);
  const connections = pool.upstreams.map((upstream) => upstream.connections);
  // Four follows at most on a connection (a node refuses a fifth): ten need three connections or more.
  expect(connections.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(Math.ceil(10 / 4));
  for (const [i, upstream] of pool.upstreams.entries()) expect(upstream.subscriptions).toBeLessThanOrEqual(4 * connections[i] + 1);
  for (const { id } of follows) expect(await client.call('chainHead_v1_unfollow', [id])).toBeNull();
}, 180_000);

it('keeps archive_v1 answers about the shared blocks, and finds a block only one node has', async () => {
  const height = manifest.blocks.transfers;
  const hash = await nodeCall<string>(nodes[0].node.httpUrl, 'chain_getBlockHash', [height]);
  const ask = async (method: string, params: unknown[]) => {
    const before = callsAt();
    const first = await rpc(call(method, params));
    const second = await rpc(call(method, params));
    expect(second).toEqual(first);
    return { result: first.result, nodeCalls: since(before).reduce((a, b) => a + b, 0) };
  };
  expect(await ask('archive_v1_hashByHeight', [height])).toEqual({ result: [hash], nodeCalls: 1 });
  const header = await ask('archive_v1_header', [hash]);
  expect(header.nodeCalls).toBe(1);
  expect(blake2AsHex(header.result as string)).toBe(hash);
  const body = await ask('archive_v1_body', [hash]);
  expect(body.nodeCalls).toBe(1);
  const block = await nodeCall<{ block: { extrinsics: string[] } }>(nodes[1].node.httpUrl, 'chain_getBlock', [hash]);
  expect(body.result).toEqual(block.block.extrinsics);
  const version = await ask('archive_v1_call', [hash, 'Core_version', '0x']);
  expect(version).toMatchObject({ result: { success: true, value: expect.stringMatching(/^0x/) }, nodeCalls: 1 });
  // A block of the second node's own: whichever node is asked first, the answer is its header, never null.
  const own = await nodeCall<string>(nodes[1].node.httpUrl, 'chain_getBlockHash', [manifest.head.number + 1]);
  expect(await holdersOf(own)).toEqual([1]);
  // Asked while both nodes are available (a node whose probe is late on a busy machine is not asked): the node without the
  // block answers null, and the proxy then asks the other.
  const headers: unknown[] = [];
  for (let i = 0; i < 4; i++) {
    await until(() => pool.upstreams.every((upstream) => upstream.available), 'both nodes available');
    headers.push((await rpc(call('archive_v1_header', [own]))).result);
  }
  for (const header of headers) expect(typeof header === 'string' && blake2AsHex(header)).toBe(own);
  // The finalized height is the lowest of the nodes'.
  const finalized = (await rpc(call('archive_v1_finalizedHeight'))).result as number;
  expect(finalized).toBeGreaterThan(manifest.head.number);
  expect(finalized).toBeLessThanOrEqual(Math.max(...pool.upstreams.map((upstream) => upstream.finalizedNumber)));
}, 120_000);

it('answers a thousand reads of "latest" state with a node call or two a block, each the state of a block one node has', async () => {
  await until(async () => Number((await metricLine('proxy_tip_height')) ?? -1) > manifest.head.number, 'the proxy to follow a tip');
  const before = callsAt();
  const tipBefore = Number(await metricLine('proxy_tip_height'));
  // 500 pairs (height, parent) in four batches sent together.
  const batches = Array.from({ length: 4 }, (_, b) =>
    Array.from({ length: 250 }, (_, i) => call('state_getStorage', [i % 2 ? SYSTEM_PARENT_HASH : SYSTEM_NUMBER], b * 250 + i)),
  );
  const answers = (await Promise.all(batches.map((batch) => rpc<Answer[]>(batch)))).flat();
  const tipAfter = Number(await metricLine('proxy_tip_height'));
  expect(answers.filter((answer) => answer.error)).toEqual([]);
  const calls = since(before).reduce((a, b) => a + b, 0);
  // Two keys, read once for each tip the reads met.
  expect(calls).toBeLessThanOrEqual(2 * (tipAfter - tipBefore + 1) + 2);
  const heights = new Set(answers.filter((answer) => (answer.id as number) % 2 === 0).map((answer) => heightOf(answer.result)));
  for (const height of heights) {
    expect(height).toBeGreaterThanOrEqual(tipBefore);
    expect(height).toBeLessThanOrEqual(tipAfter);
  }
  // Every parent read is a block of a node's own chain, one below a height read.
  const parents = new Set(answers.filter((answer) => (answer.id as number) % 2 === 1).map((answer) => answer.result as string));
  for (const parent of parents) {
    const holders = await holdersOf(parent);
    expect(holders.length).toBeGreaterThan(0);
    const header = await nodeCall<{ number: string }>(nodes[holders[0]].node.httpUrl, 'chain_getHeader', [parent]);
    expect(heights.has(Number.parseInt(header.number, 16) + 1)).toBe(true);
  }
}, 120_000);

it('a node killed under load: its follows end with `stop`, the other node follow goes on, every call of the load is answered', async () => {
  const clientA = await subscriber();
  const clientB = await subscriber();
  // A follow on each node (placed by load; followed again until each node has one).
  const onNode: ({ client: SubscriptionClient; id: string } | undefined)[] = [undefined, undefined];
  for (let tries = 0; tries < 12 && !(onNode[0] && onNode[1]); tries++) {
    const client = tries % 2 ? clientB : clientA;
    const held = subscriptionsAt();
    const { id } = await follow(client);
    const at = subscriptionsAt().findIndex((count, i) => count > held[i]);
    if (!onNode[at]) onNode[at] = { client, id };
  }
  expect(onNode.every(Boolean)).toBe(true);
  const victim = 0;
  const survivor = onNode[1]!;
  // Load: distinct reads not kept anywhere (each goes to a node), from several clients, before, during and after the kill.
  let running = true;
  const outcomes: Answer[] = [];
  const loaders = Array.from({ length: 6 }, async (_, worker) => {
    for (let i = 0; running; i++) {
      const answer = await rpc(call('system_health', [], worker * 1_000_000 + i));
      outcomes.push(answer);
    }
  });
  try {
    await until(() => outcomes.length > 50, 'the load to run');
    const killedAt = outcomes.length;
    nodes[victim].node.child.kill('SIGKILL');
    const victimFollow = onNode[victim]!;
    expect(await victimFollow.client.next<FollowEvent>(victimFollow.id, (event) => event.event === 'stop', 30_000)).toEqual({ event: 'stop' });
    // The survivor's follow goes on: a block announced after the kill.
    const seen = survivor.client.events(survivor.id).length;
    await until(
      () =>
        survivor.client
          .events(survivor.id)
          .slice(seen)
          .some((event) => (event as FollowEvent).event === 'newBlock'),
      'a new block on the other node',
      30_000,
    );
    await until(() => outcomes.length > killedAt + 200, 'the load to go on after the kill');
  } finally {
    running = false;
    await Promise.allSettled(loaders);
  }
  expect(outcomes.filter((answer) => answer.error)).toEqual([]);
  expect(outcomes.every((answer) => typeof answer.result === 'object')).toBe(true);
  // Calls go to the node left, and new follows land there.
  const before = callsAt();
  expect((await rpc(call('chain_getBlockHash', [manifest.head.number + 3]))).result).toMatch(/^0x/);
  expect(since(before)[victim]).toBe(0);
  const again = await follow(await subscriber());
  expect(await nodeCall(nodes[1 - victim].node.httpUrl, 'chain_getHeader', [again.finalized])).toEqual(expect.objectContaining({ number: expect.any(String) }));
}, 180_000);

async function metricLine(name: string): Promise<string | undefined> {
  const text = await (await fetch(`${httpUrl}/metrics`)).text();
  return text
    .split('\n')
    .find((row) => row.startsWith(`${name} `))
    ?.split(' ')[1];
}
