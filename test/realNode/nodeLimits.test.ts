// What a real node (polkadot-omni-node) refuses, and what fastcar and the proxy make of it.
// Two nodes with small limits: one holds few connections, few subscriptions on a connection,
// short batches and small requests; the other sends no answer over 1 MB and takes 120 calls a
// minute on a connection. The node's own answers are checked first (what docs/operators.md
// says of them), then fastcar over ws:// and http:// and the proxy in front: a clear JSON error
// (fastcar 503/504, the proxy a JSON-RPC error), never a hang or a 500, and answers again once
// the limit clears.
import '../../devnet/quiet';
import { request as httpRequest } from 'node:http';
import { WebSocket } from 'ws';

import type { SeedManifest } from '../../devnet/seed';
import { REAL_CHAIN_NAME, serveRealChain, type ServedRealChain } from '../../devnet/realNode';
import { startFastcarOn } from '../../harness/fastcar';
import { getJson } from '../../harness/http';
import { createLogger } from '../../src/logger';
import { proxyConfigFor } from '../../src/proxy/proxyConfig';
import { startProxy } from '../../src/proxy/startProxy';
import type { Fastcar } from '../../src/server';
import { connectSubscriber, type SubscriptionClient } from '../support/subscriptionClient';

const MAX_CONNECTIONS = 8;
const MAX_SUBSCRIPTIONS = 4;
/** Shorter than a cold block's wave of calls (four), which fastcar over http:// sends as one batch. */
const MAX_BATCH = 2;
const RATE_PER_MINUTE = 120;
const ALICE = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';

let manifest: SeedManifest;
const closers: (() => unknown)[] = [];

/** A node of its own, started when its tests begin (one node at a time: each compiles the runtime at start). */
function nodeWith(args: string[]): { served: () => ServedRealChain } {
  let served: ServedRealChain | undefined;
  beforeAll(async () => {
    served = await serveRealChain({ args, startTimeoutMs: 300_000 });
    manifest = served.manifest;
  }, 330_000);
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined);
    await served?.close();
  });
  return { served: () => served! };
}

async function fastcarOn(url: string, env: Record<string, string> = {}): Promise<Fastcar> {
  const fastcar = await startFastcarOn(url, { FASTCAR_CACHE_MAX_BYTES: '1', ...env });
  closers.push(() => fastcar.close());
  return fastcar;
}

async function proxyOn(urls: string[], settings: Parameters<typeof proxyConfigFor>[1] = {}) {
  const started = await startProxy(
    proxyConfigFor(urls, { port: 0, logLevel: 'silent', healthIntervalMs: 1000, timeoutMs: 5000, ...settings }),
    createLogger('silent'),
  );
  closers.push(() => started.proxy.close());
  return { ...started, httpUrl: `http://${started.address}`, wsUrl: `ws://${started.address}` };
}

async function subscriber(url: string): Promise<SubscriptionClient> {
  const client = await connectSubscriber(url);
  closers.push(() => client.close());
  return client;
}

type Answer = { id?: number | null; result?: unknown; error?: { code: number; message: string; data?: unknown } };

async function post(url: string, body: unknown): Promise<{ status: number; json: Answer & Answer[] }> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Answer & Answer[] };
}

/**
 * A POST the node refuses by its Content-Length: it answers and closes at once, and the client,
 * still writing the body, may meet the closed socket (EPIPE) before it reads the answer. Sent
 * again then: the answer is what is tested, not the race.
 */
async function postRefused(url: string, body: unknown): Promise<{ status: number; json: Answer & Answer[] }> {
  for (let tries = 5; ; tries--) {
    try {
      return await post(url, body);
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (tries <= 1 || (code !== 'EPIPE' && code !== 'ECONNRESET')) throw error;
    }
  }
}

const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });

/** A POST on a connection of its own (none kept alive from before). */
function freshPost(url: string, body: unknown): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json' } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () => resolve([response.statusCode ?? 0, text]));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** A WebSocket to the node, or the HTTP status its upgrade was refused with. */
function openSocket(url: string): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.once('error', reject);
  });
}

/** Opens sockets to the node until it refuses one: the node then holds as many connections as it takes. */
async function fillConnections(url: string): Promise<{ sockets: WebSocket[]; refusedWith: number }> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i <= MAX_CONNECTIONS; i++) {
    const opened = await openSocket(url);
    if (typeof opened === 'number') return { sockets, refusedWith: opened };
    sockets.push(opened);
  }
  throw new Error(`the node took ${MAX_CONNECTIONS + 1} connections`);
}

async function until<T>(ask: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 30_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await ask();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not so within ${ms} ms (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Resolves with what `work` gives, or fails the test if it takes longer than `ms`: nothing may hang. */
async function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

describe('beside a node with few connections, few subscriptions on one, short batches and small requests', () => {
  const narrow = nodeWith([
    '--rpc-max-connections',
    String(MAX_CONNECTIONS),
    '--rpc-max-subscriptions-per-connection',
    String(MAX_SUBSCRIPTIONS),
    '--rpc-max-batch-request-len',
    String(MAX_BATCH),
    '--rpc-max-request-size',
    '1',
  ]);

  it('the node refuses a batch over --rpc-max-batch-request-len whole, a request over --rpc-max-request-size with 413, subscriptions past the limit with -32006', async () => {
    const batch = Array.from({ length: MAX_BATCH + 1 }, (_, i) => call('system_chain', [], i + 1));
    const refused = await post(narrow.served().node.httpUrl, batch);
    expect(refused).toEqual({
      status: 200,
      json: { jsonrpc: '2.0', id: null, error: { code: -32010, message: 'The batch request was too large', data: `Exceeded max limit of ${MAX_BATCH}` } },
    });
    expect((await post(narrow.served().node.httpUrl, batch.slice(0, MAX_BATCH))).json).toHaveLength(MAX_BATCH);
    const big = await postRefused(narrow.served().node.httpUrl, call('system_chain', ['x'.repeat(1_100_000)]));
    expect(big).toEqual({
      status: 413,
      json: { jsonrpc: '2.0', id: null, error: { code: -32007, message: 'Request is too big', data: 'Exceeded max limit of 1048576' } },
    });
    const client = await subscriber(narrow.served().node.wsUrl);
    const follows: string[] = [];
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) follows.push(await client.call<string>('chainHead_v1_follow', [false]));
    expect((await client.request('chainHead_v1_follow', [false])).error).toEqual({
      code: -32006,
      message: 'Too many subscriptions on the connection',
      data: `Exceeded max limit of ${MAX_SUBSCRIPTIONS}`,
    });
    // One given back (the node answers an unfollow `true`), one more taken.
    expect(await client.call('chainHead_v1_unfollow', [follows[0]])).toBe(true);
    expect(await client.call<string>('chainHead_v1_follow', [false])).toEqual(expect.any(String));
    client.close();
  });

  it('fastcar over http:// learns the node batch limit and gives the answers it gives over ws://', async () => {
    const overWs = await fastcarOn(narrow.served().node.wsUrl);
    const overHttp = await fastcarOn(narrow.served().node.httpUrl);
    // Asked all at once: fastcar's waves of calls over http:// are longer than the node takes in a batch.
    const paths = [
      ...Array.from({ length: 24 }, (_, i) => `/blocks/${i + 1}`),
      `/blocks/${manifest.blocks.big}`,
      `/accounts/${ALICE}/balance-info?at=${manifest.head.number}`,
    ];
    const [overWsAnswers, overHttpAnswers] = await Promise.all(
      [overWs, overHttp].map((fastcar) => Promise.all(paths.map((path) => getJson(`${fastcar.url}${path}`)))),
    );
    for (const [i, path] of paths.entries()) {
      expect({ path, status: overWsAnswers[i].status }).toEqual({ path, status: 200 });
      expect({ path, status: overHttpAnswers[i].status }).toEqual({ path, status: 200 });
      expect(overHttpAnswers[i].body).toEqual(overWsAnswers[i].body);
    }
    const metrics = (await getJson(`${overHttp.metricsUrl}/metrics`)).text;
    const refused = [...metrics.matchAll(/^fastcar_rpc_batches_refused_total\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
    expect(refused).toBeGreaterThan(0);
  }, 120_000);

  it('fastcar over http:// answers 200, 503 or 504 (never a hang, never a 500) while the node takes no more connections, and 200 once one is free', async () => {
    // No poll of the finalized head: between requests its kept-alive connections go idle, and close.
    const fastcar = await fastcarOn(narrow.served().node.httpUrl, { FASTCAR_RPC_TIMEOUT_MS: '3000', FASTCAR_FINALIZED_POLL_MS: '600000' });
    const overWs = await fastcarOn(narrow.served().node.wsUrl);
    expect((await getJson(`${fastcar.url}/blocks/head/header`)).status).toBe(200);
    // The head's header is the followed head's (no node call): a header at a height not read before needs the node.
    let height = 1;
    const unreadHeader = () => getJson(`${fastcar.url}/blocks/${height++}/header`);
    // Twelve at once go out in batches of two (the node's batch limit), in parallel: more connections than fastcar keeps.
    const unreadHeaders = () => Promise.all(Array.from({ length: 12 }, unreadHeader));
    const { sockets, refusedWith } = await fillConnections(narrow.served().node.wsUrl);
    try {
      expect(refusedWith).toBe(429);
      // A connection of fastcar's closing meanwhile frees a place: taken again, until the node refuses a fresh POST.
      let fresh = await freshPost(narrow.served().node.httpUrl, call('system_chain'));
      for (let tries = 0; fresh[0] === 200 && tries < 5; tries++) {
        sockets.push(...(await fillConnections(narrow.served().node.wsUrl)).sockets);
        fresh = await freshPost(narrow.served().node.httpUrl, call('system_chain'));
      }
      expect(fresh).toEqual([429, 'Too many connections. Please try again later.']);
      // Its kept-alive connections close once idle (undici: 4 s), and parallel batches need more: new ones, which the node
      // refuses. While fastcar still holds one it may answer everything through it (200): never a hang, never a 500.
      const clear = {
        503: { code: 503, message: 'The node provider is limiting requests; retry shortly.' },
        504: { code: 504, message: 'The node did not answer in time.' },
      } as Record<number, unknown>;
      let refused: Awaited<ReturnType<typeof unreadHeader>> | undefined;
      for (const deadline = Date.now() + 40_000; !refused && Date.now() < deadline; ) {
        for (const answer of await within(15_000, unreadHeaders(), 'headers')) {
          if (answer.status === 200) continue;
          // Refused (429) and sent again until its deadline: 503 with Retry-After, or 504 when a resend was still out at the deadline.
          expect({ status: answer.status, body: answer.body }).toEqual({ status: answer.status, body: clear[answer.status] ?? 'a 503 or 504' });
          if (answer.status === 503) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
          refused = answer;
        }
        if (!refused) await new Promise((resolve) => setTimeout(resolve, 6_000));
      }
      if (refused) {
        // It met the node's 429s.
        const metrics = (await getJson(`${fastcar.metricsUrl}/metrics`)).text;
        const throttled = [...metrics.matchAll(/^fastcar_rpc_throttled_total\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
        expect(throttled).toBeGreaterThan(0);
      }
      // Over ws:// fastcar holds its one connection: it answers all the while.
      expect((await getJson(`${overWs.url}/blocks/head/header`)).status).toBe(200);
    } finally {
      for (const socket of sockets) socket.close();
    }
    await until(
      () => unreadHeader(),
      (answer) => answer.status === 200,
      'fastcar over http:// to answer again',
    );
  }, 120_000);

  it('the proxy answers a batch longer than the node takes, and a request larger than the node reads with the node error, its connection kept', async () => {
    const proxy = await proxyOn([narrow.served().node.wsUrl]);
    const batch = Array.from({ length: 3 * MAX_BATCH }, (_, i) => call('chain_getBlockHash', [i], i + 1));
    const answered = await post(proxy.httpUrl, batch);
    expect(answered.json.map((answer) => typeof answer.result)).toEqual(batch.map(() => 'string'));
    // A request larger than the node reads: the node's answer, and the proxy's connection to it lives on.
    const client = await subscriber(proxy.wsUrl);
    const big = await within(15_000, client.request('system_chain', ['x'.repeat(1_100_000)]), 'a call over the request size');
    expect(big.error).toEqual(expect.objectContaining({ code: expect.any(Number), message: expect.any(String) }));
    expect(await client.call('system_chain')).toBe(REAL_CHAIN_NAME);
    expect(await within(15_000, client.call<string>('chain_getBlockHash', [1]), 'a call after it')).toMatch(/^0x/);
  }, 120_000);

  it('the proxy opens another connection for follows past the node limit on one, errs clearly while the node takes no more connections, and follows again once it does', async () => {
    const proxy = await proxyOn([narrow.served().node.wsUrl], { maxSubscriptionsPerUpstreamConnection: MAX_SUBSCRIPTIONS, tipCacheMaxBytes: 0 });
    const client = await subscriber(proxy.wsUrl);
    let finalized = '';
    const follow = async () => {
      const id = await client.call<string>('chainHead_v1_follow', [false]);
      const initialized = await client.next<{ event: string; finalizedBlockHashes: string[] }>(id, (event) => event.event === 'initialized');
      finalized = initialized.finalizedBlockHashes.at(-1)!;
      return id;
    };
    const follows: string[] = [];
    for (let i = 0; i < MAX_SUBSCRIPTIONS + 1; i++) follows.push(await follow());
    expect(proxy.pool.upstreams[0].connections).toBe(2);
    expect(proxy.pool.upstreams[0].subscriptions).toBe(MAX_SUBSCRIPTIONS + 1);
    // Fill the second connection, then the node: the next follow needs a third connection, which the node refuses.
    for (let i = 0; i < MAX_SUBSCRIPTIONS - 1; i++) follows.push(await follow());
    const { sockets, refusedWith } = await fillConnections(narrow.served().node.wsUrl);
    let refused: { error?: { code: number; message: string } };
    try {
      expect(refusedWith).toBe(429);
      refused = await within(20_000, client.request('chainHead_v1_follow', [false]), 'a follow while the node is full');
    } finally {
      for (const socket of sockets) socket.close();
    }
    expect(refused.error).toEqual({ code: expect.any(Number), message: expect.stringMatching(/connection to the node/) });
    // Every follow held lives on, and the connection opens once the node has room.
    expect(await client.call<string>('chainHead_v1_header', [follows.at(-1), finalized])).toMatch(/^0x/);
    const again = await until(
      () => client.request('chainHead_v1_follow', [false]),
      (answer) => typeof answer.result === 'string',
      'a follow once the node takes connections again',
    );
    await client.next<{ event: string }>(again.result as string, (event) => event.event === 'initialized');
    expect(proxy.pool.upstreams[0].connections).toBe(3);
  }, 120_000);
});

describe('beside a node that sends answers of at most 1 MB and takes 120 calls a minute on a connection', () => {
  const strict = nodeWith(['--rpc-max-response-size', '1', '--rpc-rate-limit', String(RATE_PER_MINUTE)]);

  it('the node refuses an answer over --rpc-max-response-size with -32008, and holds calls past --rpc-rate-limit back rather than refuse them', async () => {
    const metadata = await post(strict.served().node.httpUrl, call('state_getMetadata'));
    expect(metadata.json.error).toEqual({ code: -32008, message: 'Response is too big', data: 'Exceeded max limit of 1048576' });
    // A fresh connection may make RATE_PER_MINUTE calls at once; past them the node holds calls back
    // (two a second come through) and refuses with -32999 those it held back five seconds.
    const client = await subscriber(strict.served().node.wsUrl);
    const sentAt = Date.now();
    const answeredAt = await Promise.all(
      Array.from({ length: RATE_PER_MINUTE + 30 }, () => client.request('system_chain').then((answer) => ({ answer, at: Date.now() - sentAt }))),
    );
    const refused = answeredAt.filter(({ answer }) => answer.result !== REAL_CHAIN_NAME);
    expect(refused.length).toBeGreaterThan(0);
    for (const { answer, at } of refused) {
      expect(answer.error).toEqual({ code: -32999, message: 'RPC rate limit exceeded' });
      expect(at).toBeGreaterThan(4000);
    }
    // Some were held back and then answered.
    const answered = answeredAt.filter(({ answer }) => answer.result === REAL_CHAIN_NAME).map(({ at }) => at);
    expect(answered.length).toBeGreaterThan(RATE_PER_MINUTE - 10);
    expect(Math.max(...answered) - Math.min(...answered)).toBeGreaterThan(1500);
    // Taken again once the bucket has filled a little.
    await until(
      () => client.request('system_chain'),
      (answer) => answer.result === REAL_CHAIN_NAME,
      'the node to take calls again',
    );
    client.close();
  }, 60_000);

  it('fastcar answers 503 "would not send an answer this large" past --rpc-max-response-size, over ws:// and http://, and answers what fits', async () => {
    for (const url of [strict.served().node.wsUrl, strict.served().node.httpUrl]) {
      const fastcar = await fastcarOn(url, { FASTCAR_FINALIZED_POLL_MS: '600000' });
      // The runtime's metadata is over 1 MB: no block can be decoded.
      const refused = await within(30_000, getJson(`${fastcar.url}/blocks/${manifest.blocks.transfers}`), 'a block');
      expect({ url, status: refused.status, body: refused.body }).toEqual({
        url,
        status: 503,
        body: { code: 503, message: expect.stringMatching(/would not send an answer this large.*--rpc-max-response-size/) },
      });
      const header = await getJson(`${fastcar.url}/blocks/${manifest.blocks.transfers}/header`);
      expect({ url, status: header.status, number: (header.body as { number?: string }).number }).toEqual({
        url,
        status: 200,
        number: String(manifest.blocks.transfers),
      });
    }
  }, 120_000);

  it('the proxy passes the node -32008 on, and fastcar behind it answers the same clear 503', async () => {
    const strictProxy = await proxyOn([strict.served().node.wsUrl], { healthIntervalMs: 5000 });
    const metadata = await post(strictProxy.httpUrl, call('state_getMetadata'));
    expect(metadata.json.error).toMatchObject({ code: -32008, message: expect.stringMatching(/too big/i) });
    // fastcar behind the proxy: the same clear 503 as straight on the node.
    const fastcar = await fastcarOn(strictProxy.wsUrl);
    const block = await getJson(`${fastcar.url}/blocks/${manifest.blocks.transfers}`);
    expect({ status: block.status, body: block.body }).toEqual({
      status: 503,
      body: { code: 503, message: expect.stringMatching(/would not send an answer this large/) },
    });
  }, 120_000);

  it('fastcar answers 503 "limiting requests" with Retry-After (never a hang, never a 500) for calls the node refuses past --rpc-rate-limit, then 200', async () => {
    const fastcar = await fastcarOn(strict.served().node.wsUrl, { FASTCAR_RPC_TIMEOUT_MS: '15000', FASTCAR_FINALIZED_POLL_MS: '600000' });
    // Each header a call or two on fastcar's one connection: more than the node lets through.
    const numbers = Array.from({ length: 200 }, (_, i) => i + 1);
    const answers = await within(
      60_000,
      Promise.all(numbers.map((number) => getJson(`${fastcar.url}/blocks/${number}/header`))),
      'headers under the rate limit',
    );
    const refused = answers.filter(({ status }) => status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 503,
        body: { code: 503, message: 'The node provider is limiting requests; retry shortly.' },
      });
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    await until(
      () => getJson(`${fastcar.url}/blocks/${manifest.head.number}/header`),
      (answer) => answer.status === 200,
      'fastcar to answer again',
      60_000,
    );
  }, 120_000);

  it('the proxy passes -32999 on (never a hang) for calls the node refuses past --rpc-rate-limit, backs the node off, then answers again', async () => {
    const proxy = await proxyOn([strict.served().node.wsUrl], { healthIntervalMs: 5000, timeoutMs: 15_000, tipCacheMaxBytes: 0 });
    const genesis = (await post(proxy.httpUrl, call('chain_getBlockHash', [0]))).json.result as string;
    // Distinct calls (each its own at the node), all on the proxy's one connection to it: more than its bucket holds.
    const batch = Array.from({ length: RATE_PER_MINUTE + 40 }, (_, i) =>
      call('state_getStorage', [`0x26aa394eea5630e07c48ae0c9558cef7${i.toString(16).padStart(8, '0')}`, genesis], i + 1),
    );
    const answered = await within(40_000, post(proxy.httpUrl, batch), 'a batch under the rate limit');
    const errors = answered.json.filter((answer) => answer.error).map((answer) => answer.error!);
    expect(errors).toContainEqual({ code: -32999, message: 'RPC rate limit exceeded' });
    // The rest: refused the same, or (the node backed off) no node to send them to.
    expect(errors.filter(({ code }) => code !== -32999 && code !== -32090)).toEqual([]);
    const again = await until(
      () => post(proxy.httpUrl, call('chain_getBlockHash', [manifest.head.number])),
      (answer) => typeof answer.json.result === 'string',
      'the proxy to answer again',
      60_000,
    );
    expect(again.json.result).toMatch(/^0x/);
  }, 120_000);
});
