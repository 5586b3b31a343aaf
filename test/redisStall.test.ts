// A Redis that stops answering with its connection open (a real redis-server, SIGSTOPped),
// not only one that goes away: two proxies sharing a rate limit, and two fastcar
// replicas sharing their rate limit, final answers, build leases, extrinsic hashes and
// the builds behind their block streams, all on that one Redis, on the devnet. Frozen,
// every process says once that Redis is away, its gauges read 0, and it serves on as
// without Redis (each proxy counts a flood alone); no request hangs on the frozen Redis.
// Thawed, each says once that Redis is back, the gauges read 1, and limits are shared.
import type { ChildProcess } from 'node:child_process';

import type { Devnet } from '../devnet/chain';
import { startReplica, type Replica } from '../harness/fleet';
import { startProxyProcess, startRedis, type Peer } from '../harness/processes';
import { openStream, type SseStream } from '../harness/sseClient';
import { startDevnet } from './support/devnet';

/**
 * The proxies' limit per address, in a window long enough that no window ends within a
 * test; under 10, so no call is let in ahead of the counter's answer and the count is exact.
 */
const LIMIT = 9;
const WINDOW_SECONDS = 60;
/** fastcar's per-address limit (a second's window): high, so that only sharing is seen, never a refusal. */
const PER_IP = 1000;

type Recorded = Peer & { output: () => string };

let devnet: Devnet;
let redis: Peer & { port: number };
let frozen = false;
let proxies: Recorded[] = [];
let replicas: Replica[] = [];
let stream: SseStream | undefined;

function recorded(peer: Peer & { child: ChildProcess }): Recorded {
  let out = '';
  peer.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return Object.assign(peer, { output: () => out });
}

beforeAll(async () => {
  ({ devnet } = await startDevnet());
  redis = await startRedis();
  const proxyEnv = {
    PROXY_REDIS_URL: redis.url,
    PROXY_RATE_LIMIT: String(LIMIT),
    PROXY_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    PROXY_TRUSTED_PROXIES: '1',
    PROXY_LOG_LEVEL: 'info',
  };
  const replicaEnv = {
    REDIS_URL: redis.url,
    FASTCAR_RATE_LIMIT_PER_IP: String(PER_IP),
    FASTCAR_BUILD_LEASE_MS: '3000',
    FASTCAR_EXTRINSIC_INDEX_BLOCKS: '4',
    FASTCAR_LOG_LEVEL: 'info',
  };
  [proxies, replicas] = await Promise.all([
    Promise.all([startProxyProcess([devnet.wsUrl], proxyEnv), startProxyProcess([devnet.wsUrl], proxyEnv)]).then((started) => started.map(recorded)),
    Promise.all([startReplica(devnet.wsUrl, replicaEnv), startReplica(devnet.wsUrl, replicaEnv)]),
  ]);
}, 240_000);

afterAll(async () => {
  // Never left stopped: a frozen redis-server would outlive the test.
  if (frozen) process.kill(redis.pid, 'SIGCONT');
  stream?.close();
  await Promise.all([...proxies.map((proxy) => proxy.stop()), ...replicas.map((replica) => replica.stop())]);
  await redis?.stop();
  await devnet?.close();
});

let lastAddress = 0;
const freshAddress = () => `198.51.100.${++lastAddress}`;

async function gauge(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

/** Every "shared in Redis" gauge: the proxies' rate limits, then each replica's rate limit and its shared answers. */
const readings = () =>
  Promise.all([
    ...proxies.map((proxy) => gauge(proxy.url, 'proxy_rate_limits_shared')),
    ...replicas.flatMap((replica) => [gauge(replica.metricsUrl, 'fastcar_rate_limits_shared'), gauge(replica.metricsUrl, 'fastcar_redis_shared')]),
  ]);

/** The gauges once all read `value` (or as they are after a while). */
async function allShared(value: 0 | 1): Promise<number[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const now = await readings();
    if (now.every((reading) => reading === value) || Date.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `count` system_chain calls from `address` at once, half at each proxy: how many got a result, how many were refused for the limit. */
async function flood(address: string, count: number) {
  const statuses = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await fetch(proxies[i % 2].url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'system_chain', params: [] }),
      });
      const answer = (await response.json()) as { result?: unknown; error?: { code: number } };
      return response.status === 200 && typeof answer.result === 'string'
        ? 'answered'
        : response.status === 429 && answer.error?.code === -32005
          ? 'limited'
          : 'other';
    }),
  );
  return {
    answered: statuses.filter((s) => s === 'answered').length,
    limited: statuses.filter((s) => s === 'limited').length,
    other: statuses.filter((s) => s === 'other').length,
  };
}

const said = (peer: { output: () => string }, words: string) => peer.output().split(words).length - 1;
/** The log lines each peer has written with `words` once they are there (a process's log reaches its pipe a moment after its gauges change), or after 10 s. */
async function saidOnceBy(peers: { output: () => string }[], words: string): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  while (peers.some((peer) => said(peer, words) < 1) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return peers.map((peer) => said(peer, words));
}
const leased = async (outcome: string) => {
  let sum = 0;
  for (const replica of replicas) {
    const text = await (await fetch(`${replica.metricsUrl}/metrics`)).text();
    sum += Number(new RegExp(`^fastcar_block_builds_leased_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  }
  return sum;
};

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers: { 'X-Forwarded-For': '203.0.113.1' } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it('with Redis answering: one limit for both proxies, and every gauge says shared', async () => {
  expect(await allShared(1)).toEqual([1, 1, 1, 1, 1, 1]);
  expect(await flood(freshAddress(), 2 * LIMIT)).toEqual({ answered: LIMIT, limited: LIMIT, other: 0 });
  stream = await openStream(`${replicas[0].url}/blocks/stream`);
}, 60_000);

it('Redis frozen: every process says so once, counts and builds alone, and no request waits on it', async () => {
  process.kill(redis.pid, 'SIGSTOP');
  frozen = true;
  const awayBefore = await leased('redisAway');
  // A flood at both proxies: each counts alone now, the documented behaviour for Redis away.
  expect(await flood(freshAddress(), 4 * LIMIT)).toEqual({ answered: 2 * LIMIT, limited: 2 * LIMIT, other: 0 });
  const built: { number: number; hash: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const block = await devnet.chain.newBlock();
    built.push({ number: block.number, hash: block.hash });
    // Each replica answers the new block (built alone: its lease cannot be had), its header, and the head.
    for (const replica of replicas) {
      const answer = await getJson(`${replica.url}/blocks/${block.number}`);
      expect([answer.status, answer.body.hash]).toEqual([200, block.hash]);
      expect((await getJson(`${replica.url}/blocks/${block.number}/header`)).status).toBe(200);
      expect((await getJson(`${replica.url}/blocks/head`)).status).toBe(200);
    }
  }
  expect(await allShared(0)).toEqual([0, 0, 0, 0, 0, 0]);
  expect((await leased('redisAway')) - awayBefore).toBeGreaterThan(0);
  // The extrinsic index fed itself without Redis: the newest block's first extrinsic is found by its hash.
  const newest = built[built.length - 1];
  const first = ((await getJson(`${replicas[1].url}/blocks/${newest.number}`)).body.extrinsics as { hash: string }[])[0];
  const deadline = Date.now() + 10_000;
  let found = await getJson(`${replicas[1].url}/extrinsics/${first.hash}`);
  while (found.status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    found = await getJson(`${replicas[1].url}/extrinsics/${first.hash}`);
  }
  expect([found.status, found.body.blockNumber, found.body.index]).toEqual([200, String(newest.number), '0']);
  // The stream went on: both new blocks were sent, in order.
  const streamed = () => stream!.events.filter((event) => event.id !== undefined).map((event) => Number(event.id));
  while (!built.every(({ number }) => streamed().includes(number)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(streamed().slice(-2)).toEqual(built.map(({ number }) => number));
  for (const proxy of proxies) expect(said(proxy, 'Redis is away')).toBe(1);
  for (const replica of replicas) {
    expect(said(replica, 'rate limits are counted in this process')).toBe(1);
    expect(said(replica, 'reads and builds final answers for itself')).toBe(1);
  }
  // Still frozen: everything above was answered without it.
  expect(frozen).toBe(true);
}, 120_000);

it('Redis thawed: every process says it is back once, and the limit is shared again', async () => {
  process.kill(redis.pid, 'SIGCONT');
  frozen = false;
  expect(await allShared(1)).toEqual([1, 1, 1, 1, 1, 1]);
  expect(await flood(freshAddress(), 2 * LIMIT)).toEqual({ answered: LIMIT, limited: LIMIT, other: 0 });
  // A new block is built once again across the replicas: one leads, the other awaits it.
  const ledBefore = await leased('led');
  const awaitedBefore = await leased('awaited');
  const block = await devnet.chain.newBlock();
  const answers = await Promise.all(replicas.map((replica) => getJson(`${replica.url}/blocks/${block.number}`)));
  expect(answers.map((answer) => [answer.status, answer.body.hash])).toEqual([
    [200, block.hash],
    [200, block.hash],
  ]);
  expect((await leased('led')) - ledBefore + (await leased('awaited')) - awaitedBefore).toBeGreaterThan(0);
  expect(await saidOnceBy(proxies, 'Redis is back')).toEqual([1, 1]);
  for (const proxy of proxies) expect(said(proxy, 'Redis is away')).toBe(1);
  expect(await saidOnceBy(replicas, 'Redis is back: rate limits are shared again')).toEqual([1, 1]);
  expect(await saidOnceBy(replicas, 'Redis is back: final answers are shared')).toEqual([1, 1]);
}, 60_000);
