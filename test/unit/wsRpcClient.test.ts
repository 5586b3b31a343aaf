// The WebSocket JSON-RPC client against a real `ws` server standing in for a
// node: answers, the node's errors as each caller sees them, deadlines, a lost
// connection, reconnects and renewed subscriptions, one write per turn, and a
// node that sends garbage.
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

import { NodeClient } from '../../src/rpc/nodeClient';
import { RpcError, NodeRpcError, NodeTimeoutError, NodeUnavailableError } from '../../src/rpc/nodeErrors';
import { WsRpcClient } from '../../src/rpc/wsRpcClient';
import { countSocketWrites } from '../support/socketWrites';

interface Call {
  id: number;
  method: string;
  params: unknown[];
}

/** What the node does with one call: answer it through `reply`, or not. */
type Handler = (call: Call, socket: WebSocket) => void;

class FakeNode {
  readonly server: WebSocketServer;
  readonly calls: Call[] = [];
  readonly sockets: WebSocket[] = [];
  connections = 0;
  /** Pongs the client sent without a ping (its acknowledgements of answers while others are due). */
  pongs = 0;
  handler: Handler = (call, socket) => reply(socket, call.id, `${call.method}:${JSON.stringify(call.params)}`);

  constructor(port = 0) {
    this.server = new WebSocketServer({ host: '127.0.0.1', port });
    this.server.on('connection', (socket) => {
      this.connections += 1;
      this.sockets.push(socket);
      socket.on('pong', () => (this.pongs += 1));
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as Call | Call[];
        for (const call of Array.isArray(message) ? message : [message]) {
          this.calls.push(call);
          this.handler(call, socket);
        }
      });
    });
  }

  async url(): Promise<string> {
    if (!this.server.address()) await once(this.server, 'listening');
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get last(): WebSocket {
    return this.sockets[this.sockets.length - 1];
  }

  /** Drops every connection as a crashed node would (no closing handshake). */
  dropAll(): void {
    for (const socket of this.server.clients) socket.terminate();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function reply(socket: WebSocket, id: number, result: unknown): void {
  socket.send(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

function replyError(socket: WebSocket, id: number, error: { code: number; message: string; data?: unknown }): void {
  socket.send(JSON.stringify({ jsonrpc: '2.0', id, error }));
}

function notify(socket: WebSocket, method: string, subscription: string, result: unknown): void {
  socket.send(JSON.stringify({ jsonrpc: '2.0', method, params: { subscription, result } }));
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let node: FakeNode;
let client: WsRpcClient | undefined;
const closers: (() => Promise<void>)[] = [];

beforeEach(() => {
  node = new FakeNode();
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  for (const close of closers.splice(0)) await close();
  await node.close();
});

async function connected(options: { timeoutMs?: number; maxPayload?: number } = {}): Promise<WsRpcClient> {
  client = new WsRpcClient({ url: await node.url(), timeoutMs: options.timeoutMs ?? 5000, reconnectMs: 50, maxPayload: options.maxPayload });
  await client.ready;
  return client;
}

describe('calls', () => {
  it('matches answers to calls by id, whatever order the node answers in', async () => {
    const held: Call[] = [];
    node.handler = (call, socket) => {
      held.push(call);
      if (held.length === 3) for (const each of held.reverse()) reply(socket, each.id, each.method);
    };
    const rpc = await connected();
    const answers = await Promise.all([rpc.send('a', []), rpc.send('b', [1]), rpc.send('c', [{ x: 'y' }])]);
    expect(answers).toEqual(['a', 'b', 'c']);
    expect(node.calls.map((call) => call.params)).toEqual([[], [1], [{ x: 'y' }]]);
    expect(rpc.pending).toBe(0);
  });

  it('takes answers to several calls in one batch message', async () => {
    const held: Call[] = [];
    node.handler = (call, socket) => {
      held.push(call);
      if (held.length === 2) socket.send(JSON.stringify(held.map((each) => ({ jsonrpc: '2.0', id: each.id, result: each.method.toUpperCase() }))));
    };
    const rpc = await connected();
    expect(await Promise.all([rpc.send('one', []), rpc.send('two', [])])).toEqual(['ONE', 'TWO']);
  });

  it('passes a null result on as null', async () => {
    node.handler = (call, socket) => reply(socket, call.id, null);
    const rpc = await connected();
    expect(await rpc.send('chain_getBlockHash', [99999])).toBeNull();
  });

  it('sends the calls of one turn in one write, and calls of separate turns in separate ones', async () => {
    const rpc = await connected();
    await rpc.send('warm', []);
    const writes = countSocketWrites(Number(new URL(await node.url()).port), 'remote');
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => rpc.send('together', [i])));
      // Besides the calls, only the pongs acknowledging answers while others were due.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(writes.count - node.pongs).toBe(1);
      node.pongs = 0;
      writes.count = 0;
      const apart: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i++) {
        apart.push(rpc.send('apart', [i]));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(apart);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(writes.count - node.pongs).toBe(20);
    } finally {
      writes.restore();
    }
    expect(node.calls.filter((call) => call.method === 'together').map((call) => call.params[0])).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});

describe('acknowledging answers', () => {
  it('sends an unsolicited pong after each answer while other calls are still due, and none when nothing is', async () => {
    const held: Call[] = [];
    node.handler = (call, socket) => {
      held.push(call);
      if (held.length < 3) return;
      // Three answers in three messages, apart: a real node writes each when its call is done.
      for (const [i, each] of held.entries()) setTimeout(() => reply(socket, each.id, each.method), 20 * i);
    };
    const rpc = await connected();
    expect(await Promise.all([rpc.send('a', []), rpc.send('b', []), rpc.send('c', [])])).toEqual(['a', 'b', 'c']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(node.pongs).toBe(2);

    node.handler = (call, socket) => reply(socket, call.id, call.method);
    node.pongs = 0;
    for (const method of ['d', 'e', 'f']) expect(await rpc.send(method, [])).toBe(method);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(node.pongs).toBe(0);
  });
});

describe("the node's errors", () => {
  it('rejects with the code, message and data the node gave', async () => {
    node.handler = (call, socket) => replyError(socket, call.id, { code: -32000, message: 'Client error: Execution failed', data: 'Runtime panicked' });
    const rpc = await connected();
    const error = (await rpc.send('state_call', []).catch((e: unknown) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect(error.code).toBe(-32000);
    expect(error.message).toBe('Client error: Execution failed');
    expect(error.data).toBe('Runtime panicked');
    expect(error.detail).toBe('-32000: Client error: Execution failed: Runtime panicked');
  });

  it('gives the node client NodeRpcError, null for an unknown block, and outages and timeouts of a proxy in front as such', async () => {
    node.handler = (call, socket) => {
      if (call.method === 'chain_getBlock') return replyError(socket, call.id, { code: 1, message: `Block ${String(call.params[0])} not found` });
      if (call.method === 'state_call') return replyError(socket, call.id, { code: -32000, message: 'Client error: Execution failed' });
      if (call.method === 'proxy_gone') return replyError(socket, call.id, { code: -32090, message: 'no upstream: no node is available' });
      if (call.method === 'proxy_slow') return replyError(socket, call.id, { code: -32091, message: 'upstream timeout: took too long' });
      reply(socket, call.id, 'ok');
    };
    const nodeClient = new NodeClient({ url: await node.url(), timeoutMs: 5000 });
    closers.push(() => nodeClient.disconnect());
    await nodeClient.ready();
    expect(await nodeClient.getBlock('0x1234')).toBeNull();
    const rpcError = await nodeClient.call('Core_version', '0x', '0x00').catch((e: unknown) => e);
    expect(rpcError).toBeInstanceOf(NodeRpcError);
    expect((rpcError as Error).message).toMatch(/^-32000: Client error/);
    await expect(nodeClient.send('proxy_gone', [])).rejects.toBeInstanceOf(NodeUnavailableError);
    await expect(nodeClient.send('proxy_slow', [])).rejects.toBeInstanceOf(NodeTimeoutError);
    expect(await nodeClient.send('system_chain', [])).toBe('ok');
  });

  it("gives the proxy the node's code, message and data as they are", async () => {
    node.handler = (call, socket) => replyError(socket, call.id, { code: -32602, message: 'Invalid params', data: { reason: 'bad hash' } });
    const transport = new WsRpcClient({ url: await node.url(), timeoutMs: 5000 });
    closers.push(() => transport.close());
    await transport.ready;
    const error = (await transport.send('chain_getBlock', ['0x']).catch((e: unknown) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect([error.code, error.message, error.data]).toEqual([-32602, 'Invalid params', { reason: 'bad hash' }]);
  });
});

describe('deadlines', () => {
  it('gives up a call the node does not answer by its deadline, and answers others meanwhile', async () => {
    node.handler = (call, socket) => {
      if (call.method !== 'slow') reply(socket, call.id, 'quick');
    };
    const rpc = await connected({ timeoutMs: 300 });
    const started = Date.now();
    const slow = rpc.send('slow', []).catch((e: unknown) => e);
    expect(await rpc.send('quick', [])).toBe('quick');
    const error = await slow;
    const took = Date.now() - started;
    expect(error).toBeInstanceOf(NodeTimeoutError);
    expect((error as Error).message).toBe('the node did not answer slow in 300 ms');
    expect(took).toBeGreaterThanOrEqual(295);
    expect(took).toBeLessThan(2000);
    expect(rpc.pending).toBe(0);
    // Still connected, and still answering.
    expect(await rpc.send('quick', [])).toBe('quick');
  });

  it('gives up calls sent at different times each at its own deadline', async () => {
    node.handler = () => undefined;
    const rpc = await connected({ timeoutMs: 400 });
    const firstSent = Date.now();
    const first = rpc.send('never', [1]).then(
      () => 0,
      () => Date.now(),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const secondSent = Date.now();
    const second = rpc.send('never', [2]).then(
      () => 0,
      () => Date.now(),
    );
    const [firstAt, secondAt] = await Promise.all([first, second]);
    // Neither before its own deadline: given up together at the first's, the second would be
    // 200 ms early. (A busy machine may give both up late, together: that is no fault.)
    expect(firstAt - firstSent).toBeGreaterThanOrEqual(400);
    expect(secondAt - secondSent).toBeGreaterThanOrEqual(400);
  });

  it('as NodeTimeoutError for the node client and for the proxy', async () => {
    node.handler = () => undefined;
    const url = await node.url();
    const nodeClient = new NodeClient({ url, timeoutMs: 200 });
    const transport = new WsRpcClient({ url, timeoutMs: 200 });
    closers.push(
      () => nodeClient.disconnect(),
      () => transport.close(),
    );
    await Promise.all([nodeClient.ready(), transport.ready]);
    await expect(nodeClient.getFinalizedHead()).rejects.toThrow(NodeTimeoutError);
    await expect(transport.send('chain_getFinalizedHead', [])).rejects.toThrow(NodeTimeoutError);
    expect(nodeClient.pendingRequests).toBe(0);
  });
});

describe('a lost connection', () => {
  it('fails the calls in flight at once, not at their deadline, and reconnects', async () => {
    node.handler = () => undefined;
    const rpc = await connected({ timeoutMs: 30_000 });
    const calls = [rpc.send('a', []), rpc.send('b', [])].map((call) => call.catch((e: unknown) => e));
    await until(() => node.calls.length === 2);
    const dropped = Date.now();
    node.dropAll();
    const errors = await Promise.all(calls);
    expect(Date.now() - dropped).toBeLessThan(1000);
    for (const error of errors) expect(error).toBeInstanceOf(NodeUnavailableError);
    expect(rpc.connected).toBe(false);
    expect(rpc.pending).toBe(0);
    await expect(rpc.send('while_away', [])).rejects.toThrow(NodeUnavailableError);
    node.handler = (call, socket) => reply(socket, call.id, 'back');
    await until(() => rpc.connected);
    expect(await rpc.send('again', [])).toBe('back');
    expect(node.connections).toBe(2);
  });

  it('is NodeUnavailableError for the node client', async () => {
    node.handler = () => undefined;
    const nodeClient = new NodeClient({ url: await node.url(), timeoutMs: 30_000 });
    closers.push(() => nodeClient.disconnect());
    await nodeClient.ready();
    const call = nodeClient.getFinalizedHead().catch((e: unknown) => e);
    await until(() => node.calls.length === 1);
    node.dropAll();
    expect(await call).toBeInstanceOf(NodeUnavailableError);
    await expect(nodeClient.getFinalizedHead()).rejects.toThrow(NodeUnavailableError);
  });

  it('connects once the node comes up, however late', async () => {
    const url = await node.url();
    await node.close();
    client = new WsRpcClient({ url, timeoutMs: 5000, reconnectMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(client.connected).toBe(false);
    node = new FakeNode(Number(new URL(url).port));
    node.handler = (call, socket) => reply(socket, call.id, 'late');
    await client.ready;
    expect(await client.send('x', [])).toBe('late');
  });

  it('stops for good on close(): calls in flight fail and no connection is tried again', async () => {
    node.handler = () => undefined;
    const rpc = await connected();
    const call = rpc.send('a', []).catch((e: unknown) => e);
    await until(() => node.calls.length === 1);
    await rpc.close();
    expect(await call).toBeInstanceOf(NodeUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(node.connections).toBe(1);
    await expect(rpc.send('b', [])).rejects.toThrow(NodeUnavailableError);
  });
});

describe('subscriptions', () => {
  /** A node that numbers its subscriptions per connection and remembers which are open. */
  function subscriptionNode(): { open: Set<string>; unsubscribed: string[] } {
    const state = { open: new Set<string>(), unsubscribed: [] as string[] };
    let opened = 0;
    node.handler = (call, socket) => {
      if (call.method.includes('_subscribe') || call.method === 'author_submitAndWatchExtrinsic') {
        const id = `sub-${node.sockets.indexOf(socket) + 1}-${call.id}-${++opened}`;
        state.open.add(id);
        reply(socket, call.id, id);
      } else if (call.method.includes('_unsubscribe')) {
        const id = String(call.params[0]);
        state.unsubscribed.push(id);
        reply(socket, call.id, state.open.delete(id));
      } else reply(socket, call.id, null);
    };
    return state;
  }

  it('routes notifications by subscription id, renews subscriptions after a reconnect, and ends the renewed one', async () => {
    const state = subscriptionNode();
    const rpc = await connected();
    const heads: unknown[] = [];
    const others: unknown[] = [];
    const end = await rpc.subscribe('chain_finalizedHead', 'chain_subscribeFinalizedHeads', 'chain_unsubscribeFinalizedHeads', [], (value) =>
      heads.push(value),
    );
    await rpc.subscribe('state_storage', 'state_subscribeStorage', 'state_unsubscribeStorage', [['0x01']], (value) => others.push(value));
    const [first, second] = [...state.open];
    notify(node.last, 'chain_finalizedHead', first, { number: '0x1' });
    notify(node.last, 'state_storage', second, { changes: [] });
    notify(node.last, 'chain_finalizedHead', 'nobody', { number: '0x99' });
    await until(() => heads.length === 1 && others.length === 1);
    expect(heads).toEqual([{ number: '0x1' }]);

    node.dropAll();
    state.open.clear();
    await until(() => state.open.size === 2 && rpc.connected);
    const renewed = [...state.open].find((id) => node.calls.find((call) => id.startsWith(`sub-2-${call.id}-`))?.method === 'chain_subscribeFinalizedHeads')!;
    expect(renewed).toMatch(/^sub-2-/);
    notify(node.last, 'chain_finalizedHead', renewed, { number: '0x2' });
    await until(() => heads.length === 2);
    expect(heads[1]).toEqual({ number: '0x2' });

    await end();
    expect(state.unsubscribed).toEqual([renewed]);
    notify(node.last, 'chain_finalizedHead', renewed, { number: '0x3' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heads).toHaveLength(2);
  });

  it("does not renew a transaction's watch after a reconnect: the submission is not made again", async () => {
    const state = subscriptionNode();
    const rpc = await connected();
    await rpc.subscribe('author_extrinsicUpdate', 'author_submitAndWatchExtrinsic', 'author_unwatchExtrinsic', ['0x00'], () => undefined);
    await rpc.subscribe('chain_newHead', 'chain_subscribeNewHeads', 'chain_unsubscribeNewHeads', [], () => undefined);
    node.dropAll();
    await until(() => rpc.connected && node.calls.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(node.calls.map((call) => call.method)).toEqual(['author_submitAndWatchExtrinsic', 'chain_subscribeNewHeads', 'chain_subscribeNewHeads']);
    expect(state.open.size).toBe(3);
  });

  it('delivers a notification that arrives before the answer naming its subscription', async () => {
    node.handler = (call, socket) => {
      notify(socket, 'chain_newHead', 'early-1', { number: '0x7' });
      reply(socket, call.id, 'early-1');
    };
    const rpc = await connected();
    const heads: unknown[] = [];
    await rpc.subscribe('chain_newHead', 'chain_subscribeNewHeads', 'chain_unsubscribeNewHeads', [], (value) => heads.push(value));
    expect(heads).toEqual([{ number: '0x7' }]);
    // With no subscription being opened, notifications for unknown ids are dropped, not kept.
    const dropped = rpc.dropped;
    notify(node.last, 'chain_newHead', 'early-2', { number: '0x8' });
    await until(() => rpc.dropped === dropped + 1);
  });

  it('renews the subscriptions of the node client and the proxy transport after a reconnect', async () => {
    const state = subscriptionNode();
    const url = await node.url();
    const nodeClient = new NodeClient({ url, timeoutMs: 5000 });
    const transport = new WsRpcClient({ url, timeoutMs: 5000 });
    closers.push(
      () => nodeClient.disconnect(),
      () => transport.close(),
    );
    await Promise.all([nodeClient.ready(), transport.ready]);
    const seen: string[] = [];
    await nodeClient.subscribe<{ number: string }>('chain_finalizedHead', 'chain_subscribeFinalizedHeads', 'chain_unsubscribeFinalizedHeads', [], (header) =>
      seen.push(`node ${header.number}`),
    );
    await transport.subscribe('chain_newHead', 'chain_subscribeNewHeads', 'chain_unsubscribeNewHeads', [], (header) =>
      seen.push(`proxy ${(header as { number: string }).number}`),
    );
    node.dropAll();
    state.open.clear();
    await until(() => state.open.size === 2 && nodeClient.isConnected && transport.connected);
    for (const socket of node.server.clients) for (const id of state.open) notify(socket, 'any', id, { number: '0x5' });
    await until(() => seen.length === 2);
    expect(seen.sort()).toEqual(['node 0x5', 'proxy 0x5']);
  });
});

describe('a node that sends garbage', () => {
  it('drops what is not an answer to a call in flight and keeps answering', async () => {
    let garbage = true;
    node.handler = (call, socket) => {
      if (garbage) {
        for (const junk of [
          'not json',
          '{"jsonrpc":"2.0","id":424242,"result":1}',
          'null',
          '7',
          '[1,"x",null]',
          '{"id":"1","result":2}',
          '{"method":5}',
          '{"params":{"subscription":{}}}',
          '\u0000\uffff',
        ])
          socket.send(junk);
        socket.send(Buffer.from([0xff, 0xfe, 0x00]), { binary: true });
      }
      reply(socket, call.id, 'fine');
    };
    const rpc = await connected();
    expect(await rpc.send('a', [])).toBe('fine');
    expect(rpc.dropped).toBeGreaterThanOrEqual(10);
    garbage = false;
    expect(await rpc.send('b', [])).toBe('fine');
    expect(rpc.connected).toBe(true);
  });

  it('fails a call whose answer has neither a result nor an error, or a malformed error, as the node unavailable', async () => {
    node.handler = (call, socket) =>
      socket.send(JSON.stringify(call.method === 'bare' ? { jsonrpc: '2.0', id: call.id } : { jsonrpc: '2.0', id: call.id, error: 'boom' }));
    const rpc = await connected();
    await expect(rpc.send('bare', [])).rejects.toThrow(NodeUnavailableError);
    await expect(rpc.send('error', [])).rejects.toThrow(NodeUnavailableError);
  });

  it('closes the connection on a message over the size limit, fails its calls, and reconnects', async () => {
    node.handler = (call, socket) => reply(socket, call.id, call.method === 'huge' ? 'x'.repeat(64 * 1024) : 'small');
    const rpc = await connected({ maxPayload: 16 * 1024 });
    await expect(rpc.send('huge', [])).rejects.toThrow(NodeUnavailableError);
    await until(() => rpc.connected);
    expect(await rpc.send('tiny', [])).toBe('small');
  });

  it('refuses further calls while the node leaves more than 16 MiB of them unread, and takes calls again once it reads', async () => {
    let reading = true;
    const paused: Socket[] = [];
    node.server.on('connection', (_socket, req) => {
      if (reading) return;
      req.socket.pause();
      paused.push(req.socket);
    });
    node.handler = (call, socket) => reply(socket, call.id, 'read');
    reading = false;
    const rpc = await connected({ timeoutMs: 60_000 });
    const big = 'x'.repeat(1024 * 1024);
    const unread: Promise<unknown>[] = [];
    let refused: unknown;
    for (let i = 0; i < 64 && refused === undefined; i++) {
      unread.push(rpc.send('big', [big]).catch(() => undefined));
      // A turn each: the socket takes what the kernel will before the next call.
      await new Promise((resolve) => setImmediate(resolve));
      refused = await Promise.race([
        rpc.send('probe', []).then(
          () => undefined,
          (error: unknown) => error,
        ),
        new Promise((resolve) => setTimeout(resolve, 5)),
      ]);
    }
    expect(refused).toBeInstanceOf(NodeUnavailableError);
    expect((refused as Error).message).toMatch(/not reading/);
    expect(rpc.connected).toBe(true);
    for (const socket of paused) socket.resume();
    await Promise.all(unread);
    expect(await rpc.send('after', [])).toBe('read');
  });

  it('survives a subscriber that throws', async () => {
    node.handler = (call, socket) => reply(socket, call.id, 'sub-x');
    const rpc = await connected();
    const values: unknown[] = [];
    await rpc.subscribe('n', 'm_subscribe', 'm_unsubscribe', [], (value) => {
      values.push(value);
      throw new Error('subscriber bug');
    });
    notify(node.last, 'n', 'sub-x', 1);
    notify(node.last, 'n', 'sub-x', 2);
    await until(() => values.length === 2);
    node.handler = (call, socket) => reply(socket, call.id, 'still here');
    expect(await rpc.send('after', [])).toBe('still here');
  });
});
