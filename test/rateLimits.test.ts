// Rate limits shared by a fleet (issue 36 section 1, issue 37): two proxy
// processes in front of two devnets, and two fastcar processes, every one of them
// counting in one real Redis, enforce one limit per client address together. A
// costly method has a limit of its own. Over a limit, HTTP gets 429 with
// Retry-After and each JSON-RPC call an error with a retry hint. With Redis
// killed, each process keeps answering and limits on its own (and says so once);
// with Redis back, they share again. Each test speaks for client addresses of its
// own (X-Forwarded-For behind one trusted balancer), so no window carries over.
import type { ChildProcess } from 'node:child_process';
import { WebSocket } from 'ws';

import type { Devnet } from '../devnet/chain';
import { startFastcarProcess, startProxyProcess, startRedis, type Peer } from '../harness/processes';
import { startDevnet } from './support/devnet';

/** The proxies' limits: calls per address in each window, and state_call's own. */
const WINDOW_SECONDS = 5;
const PER_CLIENT = 6;
const STATE_CALLS = 3;
/** fastcar's: requests per address per second (its window is a second). */
const PER_IP = 5;

type Running = Peer & { child: ChildProcess; output: () => string; port?: number };
type Answer = { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string; data?: { retryAfterMs: number } } };

let redis: Peer & { port: number };
let nodes: Devnet[] = [];
let proxies: (Running & { port: number })[] = [];
let fastcars: (Running & { metricsUrl: string })[] = [];

/** Everything a process prints from here on (its log lines included). */
function recorded<T extends Peer & { child: ChildProcess }>(peer: T): T & { output: () => string } {
  let out = '';
  peer.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return Object.assign(peer, { output: () => out });
}

beforeAll(async () => {
  redis = await startRedis();
  nodes = (await Promise.all([startDevnet(), startDevnet()])).map((started) => started.devnet);
  const proxyEnv = {
    PROXY_REDIS_URL: redis.url,
    PROXY_RATE_LIMIT: String(PER_CLIENT),
    PROXY_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    PROXY_RATE_LIMIT_METHODS: `state_call=${STATE_CALLS}`,
    PROXY_TRUSTED_PROXIES: '1',
    PROXY_LOG_LEVEL: 'info',
  };
  const fastcarEnv = {
    REDIS_URL: redis.url,
    FASTCAR_RATE_LIMIT_PER_IP: String(PER_IP),
    FASTCAR_TRUSTED_PROXIES: '1',
    FASTCAR_PREBUILD_BLOCKS: '0',
    FASTCAR_LOG_LEVEL: 'info',
  };
  const upstreams = nodes.map((node) => node.wsUrl);
  [proxies, fastcars] = await Promise.all([
    Promise.all([startProxyProcess(upstreams, proxyEnv), startProxyProcess(upstreams, proxyEnv)]).then((started) => started.map(recorded)),
    Promise.all([
      startFastcarProcess(nodes[0].wsUrl, fastcarEnv, { fromSource: true }),
      startFastcarProcess(nodes[1].wsUrl, fastcarEnv, { fromSource: true }),
    ]).then((started) => started.map(recorded)),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all([...proxies, ...fastcars].map((peer) => peer.stop()));
  await redis?.stop();
  await Promise.all(nodes.map((node) => node.close()));
});

let lastAddress = 0;
/** A client address no test has used yet. */
const freshAddress = () => `198.51.100.${++lastAddress}`;

const call = (method: string, id: unknown = 1, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

async function post(proxy: Peer, address: string, body: unknown): Promise<{ status: number; retryAfter: string | null; answer: Answer | Answer[] }> {
  const response = await fetch(proxy.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
    body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), answer: (await response.json()) as Answer | Answer[] };
}

/** `count` system_chain calls from `address`, one after another, taking turns over `over`: how many got a result, how many -32005. */
async function callsFrom(over: Peer[], address: string, count: number): Promise<{ answered: number; limited: number; other: unknown[] }> {
  const tally = { answered: 0, limited: 0, other: [] as unknown[] };
  for (let i = 0; i < count; i++) {
    const { status, answer } = await post(over[i % over.length], address, call('system_chain', i));
    const single = answer as Answer;
    if (status === 200 && typeof single.result === 'string') tally.answered++;
    else if (status === 429 && single.error?.code === -32005) tally.limited++;
    else tally.other.push({ status, answer });
  }
  return tally;
}

/** `count` GET /health from `address`, taking turns over `over`, all at once: statuses. */
async function requestsFrom(over: Peer[], address: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await fetch(`${over[i % over.length].url}/health`, { headers: { 'X-Forwarded-For': address } });
      await response.arrayBuffer();
      return response.status;
    }),
  );
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

async function gauge(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** Every process's "shared in Redis" gauge, once each reads `value` (the proxies' and fastcar's reconnect on their own). */
async function allShared(value: 0 | 1, withinMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const readings = await Promise.all([
      ...proxies.map((proxy) => gauge(`${proxy.url}/metrics`, 'proxy_rate_limits_shared')),
      ...fastcars.map((fastcar) => gauge(`${fastcar.metricsUrl}/metrics`, 'fastcar_rate_limits_shared')),
    ]);
    if (readings.every((reading) => reading === value) || Date.now() > deadline) return readings;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('with Redis', () => {
  it('two proxies enforce one limit per address together', async () => {
    expect(await allShared(1)).toEqual([1, 1, 1, 1]);
    const tally = await callsFrom(proxies, freshAddress(), PER_CLIENT * 2);
    // Each proxy alone would have let PER_CLIENT through: 2 * PER_CLIENT.
    expect(tally).toEqual({ answered: PER_CLIENT, limited: PER_CLIENT, other: [] });
    // Another address is not held back by it.
    expect((await callsFrom(proxies, freshAddress(), 2)).answered).toBe(2);
  });

  it('answers a call over the limit on HTTP with 429, Retry-After and a JSON-RPC error carrying the wait', async () => {
    const address = freshAddress();
    await callsFrom(proxies, address, PER_CLIENT);
    const { status, retryAfter, answer } = await post(proxies[1], address, call('system_chain', 'late'));
    expect(status).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 'late',
      error: { code: -32005, message: expect.stringMatching(/^Too many calls from this address; retry in \d s$/), data: { retryAfterMs: expect.any(Number) } },
    });
    const { retryAfterMs } = (answer as Answer).error!.data!;
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(WINDOW_SECONDS * 1000);
    expect(Number(retryAfter)).toBe(Math.ceil(retryAfterMs / 1000));
    // A batch: each call with its id refused, notifications left unanswered.
    const batch = await post(proxies[0], address, [call('system_chain', 1), { jsonrpc: '2.0', method: 'system_chain', params: [] }, call('system_name', 2)]);
    expect(batch.status).toBe(429);
    expect((batch.answer as Answer[]).map((one) => [one.id, one.error?.code])).toEqual([
      [1, -32005],
      [2, -32005],
    ]);
  });

  it('answers a call over the limit on a WebSocket with a JSON-RPC error and a retry hint, and takes calls again after the wait', async () => {
    const address = freshAddress();
    const socket = new WebSocket(`ws://127.0.0.1:${proxies[0].port}`, { headers: { 'X-Forwarded-For': address } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const answers: Answer[] = [];
    socket.on('message', (data: Buffer) => answers.push(JSON.parse(data.toString()) as Answer));
    const answered = async (n: number) => {
      while (answers.length < n) await new Promise((resolve) => setTimeout(resolve, 20));
      return answers[n - 1];
    };
    // The other proxy takes part of this address's window.
    expect((await callsFrom([proxies[1]], address, PER_CLIENT - 2)).answered).toBe(PER_CLIENT - 2);
    for (let id = 1; id <= 3; id++) socket.send(JSON.stringify(call('system_chain', id)));
    await answered(3);
    const byId = new Map(answers.map((one) => [one.id, one]));
    expect([1, 2].map((id) => byId.get(id)?.result)).toEqual([expect.any(String), expect.any(String)]);
    const refused = byId.get(3)!;
    expect(refused.error).toEqual({ code: -32005, message: expect.stringMatching(/retry in \d s/), data: { retryAfterMs: expect.any(Number) } });
    await new Promise((resolve) => setTimeout(resolve, refused.error!.data!.retryAfterMs + 50));
    socket.send(JSON.stringify(call('system_chain', 4)));
    expect((await answered(4)).result).toEqual(expect.any(String));
    socket.close();
  }, 20_000);

  it('holds a costly method to its own limit over both proxies, batches counted call by call, other methods going on', async () => {
    // At a block hash, so that the node computes it once (first, from another address) and the window is not spent waiting on it.
    const genesis = ((await post(proxies[0], freshAddress(), call('chain_getBlockHash', 0, [0]))).answer as Answer).result;
    const stateCall = (id: number) => call('state_call', id, ['Core_version', '0x', genesis]);
    for (const proxy of proxies) expect(((await post(proxy, freshAddress(), stateCall(0))).answer as Answer).result).toMatch(/^0x/);
    const address = freshAddress();
    const first = await post(proxies[0], address, stateCall(1));
    expect((first.answer as Answer).result).toMatch(/^0x/);
    // Two more in one batch on the other proxy: the method's three are used.
    const batch = await post(proxies[1], address, [stateCall(2), stateCall(3)]);
    expect(batch.status).toBe(200);
    expect((batch.answer as Answer[]).every((one) => typeof one.result === 'string')).toBe(true);
    const over = await post(proxies[0], address, stateCall(4));
    expect(over.status).toBe(429);
    expect((over.answer as Answer).error).toMatchObject({ code: -32005, message: expect.stringMatching(/^Too many state_call calls from this address/) });
    // The address's other calls are within its own limit still.
    const other = await post(proxies[1], address, call('system_chain', 5));
    expect([other.status, typeof (other.answer as Answer).result]).toEqual([200, 'string']);
    const metrics = await (await fetch(`${proxies[0].url}/metrics`)).text();
    expect(metrics).toMatch(/^proxy_rate_limited_calls_total\{limit="state_call"\} [1-9]/m);
  });

  it('two fastcar processes enforce one per-client limit together, each refusing with 429 and Retry-After', async () => {
    const statuses = await requestsFrom(fastcars, freshAddress(), PER_IP * 2);
    expect([count(statuses, 200), count(statuses, 429)]).toEqual([PER_IP, PER_IP]);
    const refused = await fetch(`${fastcars[1].url}/health`, { headers: { 'X-Forwarded-For': `198.51.100.${lastAddress}` } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ code: 429, message: expect.any(String) });
    expect(count(await requestsFrom(fastcars, freshAddress(), 2), 200)).toBe(2);
  });
});

describe('with Redis killed, then back', () => {
  it('keeps every process answering and limiting in process while Redis is away', async () => {
    await redis.stop();
    expect(await allShared(0)).toEqual([0, 0, 0, 0]);
    // Each proxy counts for itself now: the address gets its limit at each.
    const address = freshAddress();
    for (const proxy of proxies) {
      const started = performance.now();
      const tally = await callsFrom([proxy], address, PER_CLIENT + 3);
      expect(tally).toEqual({ answered: PER_CLIENT, limited: 3, other: [] });
      expect(performance.now() - started).toBeLessThan(5000); // no call waits on the missing Redis
    }
    const fastcarAddress = freshAddress();
    for (const fastcar of fastcars) {
      const statuses = await requestsFrom([fastcar], fastcarAddress, PER_IP * 2);
      expect([count(statuses, 200), count(statuses, 429)]).toEqual([PER_IP, PER_IP]);
    }
  }, 30_000);

  it('shares the limits again once Redis is back', async () => {
    redis = await startRedis(redis.port);
    expect(await allShared(1)).toEqual([1, 1, 1, 1]);
    expect(await callsFrom(proxies, freshAddress(), PER_CLIENT * 2)).toEqual({ answered: PER_CLIENT, limited: PER_CLIENT, other: [] });
    const statuses = await requestsFrom(fastcars, freshAddress(), PER_IP * 2);
    expect([count(statuses, 200), count(statuses, 429)]).toEqual([PER_IP, PER_IP]);
  }, 30_000);

  it('said once that Redis was away and once that it was back, however many reconnections failed', async () => {
    const stopped = [proxies[0], fastcars[0]];
    await Promise.all(stopped.map((peer) => peer.stop())); // its log lines are written out as it exits
    for (const peer of stopped) {
      // fastcar says it of its shared answers too: the rate limits' lines are counted here.
      const lines = peer
        .output()
        .split('\n')
        .filter((line) => line.includes('rate limits'));
      expect([lines.filter((line) => line.includes('Redis is away')).length, lines.filter((line) => line.includes('Redis is back')).length]).toEqual([1, 1]);
    }
  }, 30_000);
});
