// Build leases on a real Redis, replicas played by separate Redis connections and
// caches in this process: a value wanted by three at once is built once; a holder
// that dies leaves the build to exactly one waiter once its lease lapses; a value that
// may change is never shared; a replica that does not know a value final joins a build
// under way and builds alone otherwise; Redis away, each builds for itself, said once.
import Redis from 'ioredis';

import { BuildLeases, type SharedForm } from '../src/cache/buildLeases';
import { RedisStore } from '../src/cache/redisStore';
import { TieredCache } from '../src/cache/tieredCache';
import { startRedis, type Peer } from '../harness/processes';

const LEASE_MS = 600;
const PREFIX = 'test:';

let redis: Peer;
let raw: Redis;
const stores: RedisStore[] = [];
let keySequence = 0;

interface Replica {
  leases: BuildLeases;
  cache: TieredCache;
  logged: string[];
}

const form: SharedForm<string> = { shared: (value) => (value.startsWith('final') ? value : undefined), read: (text) => text };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function replica(url = redis.url): Promise<Replica> {
  const logged: string[] = [];
  const logger = { warn: (text: string) => logged.push(text), info: (text: string) => logged.push(text), flush: () => undefined };
  const store = new RedisStore(url, PREFIX, 60, logger as never);
  stores.push(store);
  const cache = new TieredCache(1024 * 1024, store);
  const leases = new BuildLeases(cache, store, LEASE_MS);
  const deadline = Date.now() + 5000;
  while (!(store.connected && store.listening) && Date.now() < deadline && url === redis.url) await sleep(20);
  return { leases, cache, logged };
}

/** A build that takes `ms` and counts itself. */
function counted(value: string, ms = 100) {
  const build = async () => {
    build.calls += 1;
    await sleep(ms);
    return value;
  };
  build.calls = 0;
  return build;
}

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
});

afterAll(async () => {
  for (const store of stores) await store.close();
  raw?.disconnect();
  await redis?.stop();
});

const freshKey = () => `b:${++keySequence}`;

it('builds a value three replicas want at once once, and the others read it from Redis', async () => {
  const fleet = await Promise.all([replica(), replica(), replica()]);
  const key = freshKey();
  const builds = fleet.map(() => counted('final answer'));
  const values = await Promise.all(fleet.map((member, i) => member.leases.once(key, builds[i], form)));
  expect(values).toEqual(['final answer', 'final answer', 'final answer']);
  expect(builds.reduce((sum, build) => sum + build.calls, 0)).toBe(1);
  expect(await raw.get(`${PREFIX}${key}`)).toBe('final answer');
  // The lease is freed once the answer is kept.
  expect(await raw.exists(`${PREFIX}lease:${key}`)).toBe(0);
  const led = fleet.reduce((sum, member) => sum + member.leases.counters.led, 0);
  const awaited = fleet.reduce((sum, member) => sum + member.leases.counters.awaited, 0);
  expect([led, awaited]).toEqual([1, 2]);
});

it('a holder that dies leaves the build to exactly one waiter once its lease lapses, within the lease time', async () => {
  const fleet = await Promise.all([replica(), replica()]);
  const key = freshKey();
  // The holder: took the lease and is gone, saying nothing.
  await raw.set(`${PREFIX}lease:${key}`, 'a replica that died', 'PX', LEASE_MS, 'NX');
  const started = Date.now();
  const builds = fleet.map(() => counted('final rebuilt', 50));
  const values = await Promise.all(fleet.map((member, i) => member.leases.once(key, builds[i], form)));
  expect(values).toEqual(['final rebuilt', 'final rebuilt']);
  expect(builds.map((build) => build.calls).sort()).toEqual([0, 1]);
  expect(fleet.map((member) => member.leases.counters.tookOver).sort()).toEqual([0, 1]);
  expect(Date.now() - started).toBeLessThan(LEASE_MS + 500);
});

it('never shares a value that may change: the waiters build their own at once', async () => {
  const [holder, waiter] = await Promise.all([replica(), replica()]);
  const key = freshKey();
  const holding = holder.leases.once(key, counted('best head', 200), form);
  await sleep(50);
  const waiterBuild = counted('best head, built again', 10);
  const started = Date.now();
  expect(await waiter.leases.once(key, waiterBuild, form)).toBe('best head, built again');
  expect(await holding).toBe('best head');
  expect(waiterBuild.calls).toBe(1);
  expect(Date.now() - started).toBeLessThan(LEASE_MS);
  expect(await raw.exists(`${PREFIX}${key}`)).toBe(0);
  expect(waiter.leases.counters.notShared).toBe(1);
});

it('a replica that does not know a value final joins a build under way, and builds alone when there is none', async () => {
  const [holder, late] = await Promise.all([replica(), replica()]);
  const key = freshKey();
  const holding = holder.leases.once(key, counted('final head', 200), form);
  await sleep(50);
  const lateBuild = counted('final head, again');
  expect(await late.leases.once(key, lateBuild, form, { final: false })).toBe('final head');
  expect(lateBuild.calls).toBe(0);
  await holding;
  // Nothing under way: its own build, no lease taken.
  const other = freshKey();
  const alone = counted('final other', 10);
  expect(await late.leases.once(other, alone, form, { final: false })).toBe('final other');
  expect(alone.calls).toBe(1);
  expect(late.leases.counters.led).toBe(0);
});

it('Redis away: each replica builds for itself, and says so once', async () => {
  // A port nothing listens on: Redis is not there.
  const away = await replica('redis://127.0.0.1:1');
  for (let i = 0; i < 3; i++) expect(await away.leases.once(freshKey(), counted('final alone', 1), form)).toBe('final alone');
  expect(away.leases.counters.redisAway).toBe(3);
  expect(away.logged.filter((line) => line.includes('Redis is away'))).toHaveLength(1);
});
