// The caching JSON-RPC proxy in front of strangers: hostile input on every
// transport, methods that would change the node, upstreams that lag, fork or
// answer nonsense, clients that flood or leave early. Hostile input is sent to
// the proxy in a process of its own, so that a crash shows as a dead process.
import { connect } from 'node:net';
import { WebSocket } from 'ws';

import { createLogger } from '../src/logger';
import { proxyConfigFor, type ProxyConfig } from '../src/proxy/proxyConfig';
import type { RpcProxy } from '../src/proxy/proxyServer';
import { startProxy } from '../src/proxy/startProxy';
import { chainHandler, startFakeNode, type FakeNode } from './support/fakeNode';
import { startProxyProcess, type Peer } from '../harness/processes';

type Answer = { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string } };

async function post(url: string, body: string): Promise<{ status: number; answer: unknown }> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  const text = await response.text();
  return { status: response.status, answer: text ? (JSON.parse(text) as unknown) : undefined };
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { maxPayload: 64 * 1024 * 1024 });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends one text and waits for the next message (or the socket closing: undefined). */
function exchange(socket: WebSocket, text: string): Promise<unknown> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      socket.off('close', onClose);
      resolve(JSON.parse(data.toString()) as unknown);
    };
    const onClose = () => {
      socket.off('message', onMessage);
      resolve(undefined);
    };
    socket.once('message', onMessage);
    socket.once('close', onClose);
    socket.send(text);
  });
}

const call = (method: string, params: unknown[] = [], id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** The methods a hostile client tried that must never reach a node. */
const UNSAFE = [
  'dev_newBlock',
  'dev_setStorage',
  'dev_setHead',
  'dev_timeTravel',
  'dev_setBlockBuildMode',
  'author_insertKey',
  'author_rotateKeys',
  'author_removeExtrinsic',
  'author_hasKey',
  'author_hasSessionKeys',
  'system_addReservedPeer',
  'system_removeReservedPeer',
  'system_reservedPeers',
  'system_addLogFilter',
  'system_resetLogFilter',
  'offchain_localStorageSet',
  'offchain_localStorageGet',
  'sudo_sessionKeys_unstable_generate',
  'sudo_network_unstable_watch',
  'system_peers',
  'system_networkState',
  'state_getPairs',
  'state_traceBlock',
  'system_dryRun',
];
const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

describe('hostile clients, against the proxy in its own process', () => {
  let node: FakeNode;
  let proxy: Peer & { port: number; child: import('node:child_process').ChildProcess };
  let wsUrl: string;

  beforeAll(async () => {
    node = await startFakeNode(chainHandler({ best: 210, finalized: 210, tag: 'a' }));
    proxy = await startProxyProcess([node.url], {
      PROXY_MAX_BATCH_SIZE: '64',
      PROXY_MAX_BODY_BYTES: String(256 * 1024),
      PROXY_HEADERS_TIMEOUT_MS: '1000',
      PROXY_REQUEST_TIMEOUT_MS: '2000',
    });
    wsUrl = `ws://127.0.0.1:${proxy.port}`;
  }, 60_000);

  afterAll(async () => {
    await proxy?.stop();
    await node?.close();
  });

  /** After every test: the process is alive and serves an ordinary call. */
  afterEach(async () => {
    expect(proxy.child.exitCode).toBeNull();
    const { answer } = await post(proxy.url, call('chain_getBlockHash', [7]));
    expect((answer as Answer).result).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('survives clients that abort their body half way', async () => {
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(proxy.port, '127.0.0.1', () => {
          socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"');
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 20);
        });
        socket.on('error', () => resolve());
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  });

  it('refuses messages nested deeper than the limit, over HTTP and WebSocket, before parsing them', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const bodies = [
      `{"jsonrpc":"2.0","id":${deep},"method":"chain_getHeader","params":[]}`,
      `{"jsonrpc":"2.0","id":1,"method":"chain_getBlockHash","params":${deep}}`,
      deep,
    ];
    const socket = await openSocket(wsUrl);
    try {
      for (const body of bodies) {
        const viaHttp = await post(proxy.url, body);
        expect(viaHttp.answer).toMatchObject({ id: null, error: { code: -32600 } });
        expect(await exchange(socket, body)).toMatchObject({ id: null, error: { code: -32600 } });
      }
    } finally {
      socket.close();
    }
  });

  it('answers ids that are not a string, a number or null with an invalid request, id null', async () => {
    for (const id of [{ a: 1 }, [1], true]) {
      const { answer } = await post(proxy.url, call('chain_getBlockHash', [1], id));
      expect(answer).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('id') } });
    }
    for (const id of ['x', 0, null]) {
      const { answer } = await post(proxy.url, call('chain_getBlockHash', [1], id));
      expect(answer).toMatchObject({ id, result: expect.any(String) });
    }
  });

  it('never lets a method that changes or reveals the node reach it, on either transport', async () => {
    const before = node.calls.length;
    const socket = await openSocket(wsUrl);
    try {
      for (const method of UNSAFE) {
        const http = (await post(proxy.url, call(method, ['0x00']))).answer as Answer;
        const ws = (await exchange(socket, call(method, ['0x00']))) as Answer;
        expect([method, http.error?.code, ws.error?.code]).toEqual([method, -32601, -32601]);
      }
      // Keys-less storage subscriptions stream every change: refused too.
      expect(await exchange(socket, call('state_subscribeStorage', []))).toMatchObject({ error: { code: -32602 } });
    } finally {
      socket.close();
    }
    const reached = node.calls
      .slice(before)
      .map((c) => c.method)
      .filter((method) => !/^chain_get(Header|FinalizedHead)$/.test(method));
    expect(reached).toEqual([]); // only the proxy's own health checks
  });

  it('treats prototype names as the unknown methods they are', async () => {
    const unknown = ((await post(proxy.url, call('no_suchMethod'))).answer as Answer).error;
    expect(unknown?.code).toBe(-32601);
    const socket = await openSocket(wsUrl);
    try {
      for (const method of PROTOTYPE_NAMES) {
        const http = (await post(proxy.url, call(method))).answer as Answer;
        const ws = (await exchange(socket, call(method))) as Answer;
        expect(http.error).toEqual({ code: -32601, message: `Method not found: ${method}` });
        expect(ws).toEqual(http);
      }
    } finally {
      socket.close();
    }
  });

  it('refuses a batch over the cap whole, without reaching the node', async () => {
    const before = node.callsOf('chain_getBlockHash').length;
    const batch = Array.from({ length: 65 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'chain_getBlockHash', params: [i] }));
    const { answer } = await post(proxy.url, JSON.stringify(batch));
    expect(answer).toMatchObject({ id: null, error: { code: -32010 } });
    expect(node.callsOf('chain_getBlockHash').length).toBe(before);
    const allowed = await post(proxy.url, JSON.stringify(batch.slice(0, 64)));
    expect((allowed.answer as unknown[]).length).toBe(64);
  });

  it('closes only the socket that sends a message over the size limit', async () => {
    const socket = await openSocket(wsUrl);
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.on('error', () => undefined);
    socket.send(call('chain_getBlockHash', ['x'.repeat(300 * 1024)]));
    expect(await closed).toBe(1009);
  });

  it('cuts off an HTTP client that does not finish its headers', async () => {
    const closedAfter = await new Promise<number>((resolve) => {
      const started = Date.now();
      const socket = connect(proxy.port, '127.0.0.1', () => socket.write('POST / HTTP/1.1\r\nHost: x\r\n'));
      socket.on('data', () => undefined);
      socket.on('close', () => resolve(Date.now() - started));
      socket.on('error', () => undefined);
    });
    expect(closedAfter).toBeLessThan(10_000);
  }, 15_000);

  it('lives through a fuzz of malformed, mistyped, deep, huge and prototype-named messages and batches', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
    const value = (): unknown =>
      pick<() => unknown>([
        () => null,
        () => Math.floor(random() * 1e6),
        () => 1e308 * 10,
        () => -0,
        () => 'x'.repeat(Math.floor(random() * 5000)),
        () => pick(PROTOTYPE_NAMES),
        () => ({ __proto__: { polluted: true }, constructor: 1 }),
        () => [value()],
        () => true,
      ])();
    const message = (): unknown =>
      pick<() => unknown>([
        () => ({
          jsonrpc: '2.0',
          id: value(),
          method: pick([...PROTOTYPE_NAMES, ...UNSAFE, 'chain_getBlockHash', 'chain_getHeader', value()]),
          params: value(),
        }),
        () => ({ jsonrpc: value(), id: 1, method: 'chain_getBlockHash', params: [Math.floor(random() * 300)] }),
        () => ({ method: 'chain_subscribeNewHeads' }),
        () => ({ jsonrpc: '2.0', method: 'chain_unsubscribeNewHeads', params: [value()] }),
        () => value(),
      ])();
    const text = (): string =>
      pick<() => string>([
        () => JSON.stringify(message()),
        () => JSON.stringify(Array.from({ length: Math.floor(random() * 80) }, message)),
        () => JSON.stringify(message()).slice(0, Math.floor(random() * 40)),
        () => `${'{"a":'.repeat(Math.floor(random() * 60))}1`,
        () => '\u0000\uffff\ud800',
        () => '[]',
        () => `{"jsonrpc":"2.0","id":1,"method":"chain_getBlockHash","params":[${'9'.repeat(400)}]}`,
      ])();
    const sockets = await Promise.all([openSocket(wsUrl), openSocket(wsUrl)]);
    let httpAnswers = 0;
    try {
      for (let i = 0; i < 600; i++) {
        const body = text();
        const { status } = await fetch(proxy.url, { method: 'POST', body }).then(async (r) => ({ status: r.status, text: await r.text() }));
        expect(status).toBeLessThan(500);
        httpAnswers += 1;
        const socket = sockets[i % 2];
        if (socket.readyState === socket.OPEN) socket.send(body);
      }
    } finally {
      for (const socket of sockets) socket.close();
    }
    expect(httpAnswers).toBe(600);
  }, 60_000);
});

describe('upstreams that lag, fork or answer nonsense', () => {
  let good: FakeNode;
  let forked: FakeNode;
  let proxy: RpcProxy;
  let url: string;

  async function start(upstreams: string[], overrides: Partial<ProxyConfig> = {}) {
    const started = await startProxy(
      proxyConfigFor(upstreams, { port: 0, healthIntervalMs: 100, timeoutMs: 2000, logLevel: 'silent', ...overrides }),
      createLogger('silent'),
    );
    // Wait until every upstream's finalized height is known.
    while (started.pool.upstreams.some((u) => u.finalizedNumber < 0)) await new Promise((resolve) => setTimeout(resolve, 50));
    return { proxy: started.proxy, url: `http://${started.address}` };
  }

  afterEach(async () => {
    await proxy?.close();
    await Promise.all([good?.close(), forked?.close()]);
  });

  it('serves and caches the hash of height n only from an upstream that has itself finalized n', async () => {
    good = await startFakeNode(chainHandler({ best: 210, finalized: 210, tag: 'a' }));
    forked = await startFakeNode(chainHandler({ best: 205, finalized: 190, tag: 'a', forkAbove: { height: 190, tag: 'f' } }));
    ({ proxy, url } = await start([forked.url, good.url]));
    for (let round = 0; round < 2; round++) {
      for (let n = 185; n <= 205; n++) {
        const { answer } = await post(url, call('chain_getBlockHash', [n]));
        expect([n, (answer as Answer).result]).toEqual([n, chainHandler({ best: 210, finalized: 210, tag: 'a' })('chain_getBlockHash', [n])]);
      }
    }
    const askedAboveItsFinalized = forked.callsOf('chain_getBlockHash').filter((c) => Number(c.params[0]) > 190);
    expect(askedAboveItsFinalized).toEqual([]);
  });

  it('keeps no answer of the wrong type, and serves the right one once the upstream recovers', async () => {
    const honest = chainHandler({ best: 210, finalized: 210, tag: 'a' });
    good = await startFakeNode(honest);
    ({ proxy, url } = await start([good.url]));
    for (const [round, nonsense] of [[[1]], '0x1234', { number: 1 }].entries()) {
      const n = 9 + round;
      const hash = honest('chain_getBlockHash', [n]) as string;
      good.setHandler((method, params) =>
        method === 'chain_getBlockHash' || (method === 'chain_getHeader' && params[0] === hash) ? nonsense : honest(method, params),
      );
      const bad = (await post(url, call('chain_getBlockHash', [n]))).answer as Answer;
      expect(bad.error?.code).toBe(-32090);
      const badHeader = (await post(url, call('chain_getHeader', [hash]))).answer as Answer;
      expect(badHeader.error?.code).toBe(-32090);
      good.setHandler(honest);
      expect(((await post(url, call('chain_getBlockHash', [n]))).answer as Answer).result).toBe(hash);
      expect(((await post(url, call('chain_getHeader', [hash]))).answer as Answer).result).toMatchObject({ number: `0x${n.toString(16)}` });
    }
  });

  it('does not cache a block or header that is not the one asked for', async () => {
    good = await startFakeNode(chainHandler({ best: 210, finalized: 210, tag: 'a' }));
    ({ proxy, url } = await start([good.url]));
    const hash = chainHandler({ best: 210, finalized: 210, tag: 'a' })('chain_getBlockHash', [3]) as string;
    const before = good.callsOf('chain_getHeader').filter((c) => c.params[0] === hash).length;
    for (let i = 0; i < 3; i++) await post(url, call('chain_getHeader', [hash]));
    // The fake headers do not hash to the fake hashes: each request went to the node.
    expect(good.callsOf('chain_getHeader').filter((c) => c.params[0] === hash).length - before).toBe(3);
  });

  it("answers 'no upstream' (-32090) when no node is left, and /health says so", async () => {
    good = await startFakeNode(chainHandler({ best: 210, finalized: 210, tag: 'a' }));
    ({ proxy, url } = await start([good.url]));
    await good.close();
    const deadline = Date.now() + 5000;
    let health = await fetch(`${url}/health`);
    while (health.status !== 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      health = await fetch(`${url}/health`);
    }
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'no upstream' });
    const { answer } = await post(url, call('chain_getHeader'));
    expect((answer as Answer).error).toMatchObject({ code: -32090, message: expect.stringMatching(/^no upstream/) });
  });

  it("starts another connection's call while one connection has ten thousand waiting", async () => {
    good = await startFakeNode(chainHandler({ best: 210, finalized: 210, tag: 'a' }));
    ({ proxy, url } = await start([good.url]));
    const wsUrl = url.replace('http', 'ws');
    const [flooder, victim] = await Promise.all([openSocket(wsUrl), openSocket(wsUrl)]);
    try {
      const total = 10_000;
      let answered = 0;
      const floodDone = new Promise<void>((resolve) =>
        flooder.on('message', () => {
          if (++answered === total) resolve();
        }),
      );
      // Each call is distinct and not cacheable (the fake headers do not hash to their hashes).
      for (let i = 0; i < total; i++) flooder.send(call('chain_getHeader', [`0x${'a'.repeat(48)}${i.toString(16).padStart(16, '0')}`], i));
      while (answered === 0) await new Promise((resolve) => setImmediate(resolve));
      const victimAnswer = (await exchange(victim, call('chain_getBlockHash', [3]))) as Answer;
      const floodAnsweredFirst = answered;
      await floodDone;
      console.log(`victim answered after ${floodAnsweredFirst} of ${total} flood calls`);
      expect(victimAnswer.result).toMatch(/^0x/);
      expect(floodAnsweredFirst).toBeLessThan(total / 4);
    } finally {
      flooder.close();
      victim.close();
    }
  }, 60_000);

  it('caps subscriptions per connection', async () => {
    good = await startFakeNode(chainHandler({ best: 210, finalized: 210, tag: 'a' }));
    ({ proxy, url } = await start([good.url], { maxSubscriptionsPerConnection: 3 }));
    const socket = await openSocket(url.replace('http', 'ws'));
    try {
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i++) answers.push((await exchange(socket, call('state_subscribeStorage', [[`0x0${i}`]], i))) as Answer);
      expect(answers.slice(0, 3).every((answer) => typeof answer.result === 'string')).toBe(true);
      expect(answers[3].error?.code).toBe(-32006);
    } finally {
      socket.close();
    }
  });

  it('closes upstream subscriptions of clients that leave before the node answered', async () => {
    good = await startFakeNode(chainHandler({ best: 210, finalized: 210, tag: 'a' }));
    ({ proxy, url } = await start([good.url]));
    good.setSubscribeDelay(300);
    const wsUrl = url.replace('http', 'ws');
    const clients = await Promise.all(Array.from({ length: 20 }, () => openSocket(wsUrl)));
    clients.forEach((socket, i) => {
      socket.send(call('state_subscribeStorage', [[`0x${i.toString(16).padStart(4, '0')}`]]));
      socket.close();
    });
    // Two more that share one subscription: one leaves early, one stays.
    const [early, stays] = await Promise.all([openSocket(wsUrl), openSocket(wsUrl)]);
    early.send(call('chain_subscribeFinalizedHeads'));
    early.close();
    const kept = (await exchange(stays, call('chain_subscribeFinalizedHeads'))) as Answer;
    expect(typeof kept.result).toBe('string');
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(good.callsOf('state_subscribeStorage').length).toBe(20);
    expect(good.callsOf('state_unsubscribeStorage').length).toBe(20);
    expect(good.callsOf('chain_subscribeFinalizedHeads').length).toBe(1);
    expect(good.callsOf('chain_unsubscribeFinalizedHeads').length).toBe(0);
    stays.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(good.callsOf('chain_unsubscribeFinalizedHeads').length).toBe(1);
  });

  it('lets an operator allow a method by name', async () => {
    good = await startFakeNode((method, params) => (method === 'dev_newBlock' ? '0xblock' : chainHandler({ best: 1, finalized: 1, tag: 'a' })(method, params)));
    ({ proxy, url } = await start([good.url], { allowMethods: ['dev_*'], denyMethods: ['system_health'] }));
    expect(((await post(url, call('dev_newBlock'))).answer as Answer).result).toBe('0xblock');
    expect(((await post(url, call('system_health'))).answer as Answer).error?.code).toBe(-32601);
  });
});
