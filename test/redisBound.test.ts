// How long Redis has to answer, on a real redis-server: a command not answered within
// REDIS_BOUND_MS marks Redis away (a frozen one: redisStall.test.ts), but a stall of this
// process past the bound (its event loop busy while the reply arrived) is this process's,
// not Redis's: the reply is taken, Redis stays shared, for cached answers and for rate
// counters alike. Before, a replica busy for a moment dropped out of its fleet's cache.
// And a frozen Redis is still called away within about a second on a replica that stays busy.
import { performance } from 'node:perf_hooks';

import { CounterStore } from '../src/limits/counterStore';
import { WindowLimiter } from '../src/limits/windowLimiter';
import { RedisStore } from '../src/cache/redisStore';
import { REDIS_BOUND_MS } from '../src/cache/redisLiveness';
import { createLogger } from '../src/logger';
import { startRedis, type Peer } from '../harness/processes';

let redis: Peer & { port: number };

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.stop();
});

/** Keeps this process's event loop busy for `ms`, as a long synchronous step does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

it('takes a reply that came while this process was busy past the bound, and keeps Redis shared', async () => {
  const said: string[] = [];
  const words = { warn: (text: string) => said.push(text), info: (text: string) => said.push(text), flush: () => undefined };
  const store = new RedisStore(redis.url, 'bound:', 60, words as never);
  try {
    await until(() => store.connected);
    await store.set('answer', 'final');
    const reading = store.get('answer');
    stall(REDIS_BOUND_MS * 3);
    expect(await reading).toBe('final');
    expect(store.connected).toBe(true);
    // Several commands on their way through one stall, writes among them.
    const writes = [store.set('a', '1'), store.set('b', '2'), store.get('answer')];
    stall(REDIS_BOUND_MS * 2);
    expect(await Promise.all(writes)).toEqual([undefined, undefined, 'final']);
    expect([await store.get('a'), await store.get('b')]).toEqual(['1', '2']);
    expect(said).toEqual([]);
  } finally {
    await store.close();
  }
});

it('counts a rate in Redis through a stall of this process, not in process', async () => {
  const logger = createLogger('silent');
  const store = new CounterStore(redis.url, logger);
  const limiter = new WindowLimiter({ calls: 5, windowSeconds: 60, burst: 0 }, 'bound-rate', store);
  try {
    await until(() => store.shared && store.client.status === 'ready');
    const counted = limiter.wait('client', 1);
    // The increment leaves a turn or two of the loop later (gathered, then pipelined); the stall comes once it is sent.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    stall(REDIS_BOUND_MS * 3);
    expect(await counted).toBe(0);
    expect(store.shared).toBe(true);
    // Counted in Redis, where every process behind the balancer sees it.
    const keys = await store.client.keys('*bound-rate*');
    expect(keys.length).toBeGreaterThan(0);
    expect(Number(await store.client.get(keys[0]))).toBe(1);
  } finally {
    store.close();
  }
});

it('calls a frozen Redis away within about a second while this process stays busy', async () => {
  const store = new RedisStore(redis.url, 'bound:', 60);
  try {
    await until(() => store.connected);
    process.kill(redis.pid, 'SIGSTOP');
    const started = performance.now();
    let outcome: string | undefined;
    store.get('answer').then(
      () => (outcome = 'answered'),
      () => (outcome = 'failed'),
    );
    // Busy most of the time, as a loaded replica is: every bound's timer comes late.
    while (outcome === undefined && performance.now() - started < 8000) {
      stall(400);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(outcome).toBe('failed');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(store.connected).toBe(false);
  } finally {
    process.kill(redis.pid, 'SIGCONT');
    await store.close();
  }
});
