// Rate limits let in at once (issue 36, speed): a proxy lets a call of an address it
// knows to be well under its window go ahead without waiting for Redis, and adds it
// to the shared counter in the background. Two proxy processes on one real Redis,
// each flooded by the same address over many WebSockets, 64 calls in flight at each:
// the flood is still cut at the limit, past it by no more than the stated bound (twice
// each proxy's share of calls not yet answered for, a tenth of the window; it holds
// while Redis answers within its 250 ms, as it does at this load); and with Redis
// killed, each proxy holds the limit in process, exactly.
import { WebSocket } from 'ws';

import type { Devnet } from '../devnet/chain';
import { startProxyProcess, startRedis, type Peer } from '../harness/processes';
import { startDevnet } from './support/devnet';

const LIMIT = 1000;
/** What each proxy may let in ahead of Redis's answers (src/limits/windowLimiter.ts: a tenth of the window). */
const SHARE = LIMIT / 10;
const SOCKETS_PER_PROXY = 8;
const CALLS_PER_SOCKET = 250;

let redis: Peer & { port: number };
let devnet: Devnet;
let proxies: (Peer & { port: number })[] = [];

beforeAll(async () => {
  redis = await startRedis();
  devnet = (await startDevnet()).devnet;
  const env = {
    PROXY_REDIS_URL: redis.url,
    PROXY_RATE_LIMIT: String(LIMIT),
    PROXY_RATE_LIMIT_WINDOW_SECONDS: '120',
    PROXY_TRUSTED_PROXIES: '1',
    PROXY_MAX_CONNECTIONS_PER_CLIENT: String(SOCKETS_PER_PROXY * 2),
  };
  proxies = await Promise.all([startProxyProcess([devnet.wsUrl], env), startProxyProcess([devnet.wsUrl], env)]);
}, 240_000);

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await redis?.stop();
  await devnet?.close();
});

let lastAddress = 0;
const freshAddress = () => `203.0.113.${++lastAddress}`;

/** Calls each socket keeps waiting for an answer: 64 in flight at each proxy, as `npm run bench:proxy` loads it. */
const IN_FLIGHT = 8;

/** `calls` system_chain calls on one WebSocket as `address`, IN_FLIGHT at a time: how many were answered, how many refused for the rate. */
function flood(proxy: Peer & { port: number }, address: string, calls: number): Promise<{ answered: number; limited: number; other: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${proxy.port}`, { headers: { 'X-Forwarded-For': address } });
    const tally = { answered: 0, limited: 0, other: 0 };
    let sent = 0;
    const sendOne = () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: sent++, method: 'system_chain', params: [] }));
    socket.on('error', reject);
    socket.on('open', () => {
      while (sent < IN_FLIGHT) sendOne();
    });
    socket.on('message', (data: Buffer) => {
      const answer = JSON.parse(data.toString()) as { result?: unknown; error?: { code: number } };
      if (typeof answer.result === 'string') tally.answered++;
      else if (answer.error?.code === -32005) tally.limited++;
      else tally.other++;
      if (sent < calls) sendOne();
      else if (tally.answered + tally.limited + tally.other === calls) {
        socket.close();
        resolve(tally);
      }
    });
  });
}

/** Every socket of a flood from one address over `over`, added up. */
async function floodFrom(over: (Peer & { port: number })[], address: string) {
  const tallies = await Promise.all(over.flatMap((proxy) => Array.from({ length: SOCKETS_PER_PROXY }, () => flood(proxy, address, CALLS_PER_SOCKET))));
  return tallies.reduce((sum, tally) => ({ answered: sum.answered + tally.answered, limited: sum.limited + tally.limited, other: sum.other + tally.other }));
}

async function metric(proxy: Peer, name: string): Promise<number> {
  const text = await (await fetch(`${proxy.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

async function shared(value: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const readings = await Promise.all(proxies.map((proxy) => metric(proxy, 'proxy_rate_limits_shared')));
    if (readings.every((reading) => reading === value)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the proxies' limits were not ${value ? 'shared' : 'in process'} within 15 s`);
}

const atOnce = async () => (await Promise.all(proxies.map((proxy) => metric(proxy, 'proxy_rate_limit_admitted_at_once_total')))).reduce((a, b) => a + b);

describe('calls let in ahead of Redis', () => {
  it('cuts a flood from one address over two proxies at the limit, past it by at most twice each proxy share', async () => {
    await shared(1);
    const address = freshAddress();
    const before = await atOnce();
    const tally = await floodFrom(proxies, address);
    const letInAtOnce = (await atOnce()) - before;
    console.log(
      `flood of ${2 * SOCKETS_PER_PROXY * CALLS_PER_SOCKET} calls: ${tally.answered} answered (${letInAtOnce} of all let in at once), ${tally.limited} refused`,
    );
    expect(tally.other).toBe(0);
    expect(tally.answered).toBeGreaterThanOrEqual(LIMIT);
    expect(tally.answered).toBeLessThanOrEqual(LIMIT + 2 * SHARE * proxies.length);
    expect(letInAtOnce).toBeGreaterThan(SHARE);
  }, 60_000);

  it('holds the limit in each proxy, exactly, while Redis is away', async () => {
    await redis.stop();
    await shared(0);
    const address = freshAddress();
    for (const proxy of proxies) {
      const started = performance.now();
      const tally = await floodFrom([proxy], address);
      // Alone, a proxy knows every call it counted: not one past the limit.
      expect(tally).toEqual({ answered: LIMIT, limited: SOCKETS_PER_PROXY * CALLS_PER_SOCKET - LIMIT, other: 0 });
      expect(performance.now() - started).toBeLessThan(10_000); // nothing waits on the missing Redis
    }
  }, 60_000);
});
