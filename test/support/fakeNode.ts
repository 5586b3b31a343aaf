// A scriptable JSON-RPC node over WebSocket that records every call it gets.
// For what the devnet cannot play: a forked or lagging node, a node answering
// nonsense, a slow subscription. Tests that need a real chain use the devnet.
import { WebSocketServer, type WebSocket } from 'ws';

export interface RecordedCall {
  method: string;
  params: unknown[];
}

export class FakeRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Answers one call; a thrown FakeRpcError becomes a JSON-RPC error. */
export type Handler = (method: string, params: unknown[]) => unknown;

export interface FakeNode {
  url: string;
  calls: RecordedCall[];
  callsOf(method: string): RecordedCall[];
  setHandler(handler: Handler): void;
  /** Delays the answer to every subscribe call (unsubscribes are answered at once). */
  setSubscribeDelay(ms: number): void;
  /** Delays the answers to calls of these methods, as a node busy computing them would. */
  setCallDelay(ms: number, methods: string[]): void;
  /** Calls of delayed methods being computed now, and the most there have been at once. */
  readonly busy: { now: number; most: number };
  /** Refuses subscriptions past this many on one connection, as a node does (jsonrpsee: 1024). */
  setMaxSubscriptionsPerConnection(max: number): void;
  /** Subscriptions held on each open connection. */
  subscriptionsPerConnection(): number[];
  close(): Promise<void>;
}

const hex = (n: number) => `0x${n.toString(16)}`;
const pad = (tag: string, n: number) => `0x${tag}${n.toString(16).padStart(64 - tag.length, '0')}`;

/** A chain as a fake node tells it: heights 0..best, hashes by a tag, `finalized` finalized. */
export function chainHandler(chain: { best: number; finalized: number; tag: string; forkAbove?: { height: number; tag: string } }): Handler {
  const hashOf = (n: number) => (chain.forkAbove && n > chain.forkAbove.height ? pad(chain.forkAbove.tag, n) : pad(chain.tag, n));
  const numberOf = (hash: string) => parseInt(hash.slice(-16), 16);
  const header = (n: number) => ({
    parentHash: hashOf(Math.max(0, n - 1)),
    number: hex(n),
    stateRoot: pad('5', n),
    extrinsicsRoot: pad('e', n),
    digest: { logs: [] },
  });
  return (method, params) => {
    switch (method) {
      case 'chain_getHeader':
        return header(params[0] === undefined ? chain.best : numberOf(String(params[0])));
      case 'chain_getFinalizedHead':
        return hashOf(chain.finalized);
      case 'chain_getBlockHash': {
        const n = Number(params[0]);
        return n <= chain.best ? hashOf(n) : null;
      }
      case 'system_health':
        return { peers: 1, isSyncing: false, shouldHavePeers: true };
      default:
        throw new FakeRpcError(-32601, `Method not found: ${method}`);
    }
  };
}

const UNSUBSCRIBE = /unsubscribe|unwatch/i;
const SUBSCRIBE = /subscribe|submitAndWatch/i;

export async function startFakeNode(handler: Handler): Promise<FakeNode> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const calls: RecordedCall[] = [];
  let current = handler;
  let subscribeDelay = 0;
  let nextSubscription = 1;
  let callDelay = { ms: 0, methods: new Set<string>() };
  const busy = { now: 0, most: 0 };
  let maxSubscriptions = Infinity;
  const held = new Map<WebSocket, Set<string>>();

  const answer = (socket: WebSocket, id: unknown, method: string, params: unknown[]) => {
    const reply = (body: object) => socket.readyState === socket.OPEN && socket.send(JSON.stringify({ jsonrpc: '2.0', id, ...body }));
    const subscriptions = held.get(socket)!;
    if (UNSUBSCRIBE.test(method)) {
      subscriptions.delete(String(params[0]));
      return reply({ result: true });
    }
    if (SUBSCRIBE.test(method)) {
      if (subscriptions.size >= maxSubscriptions)
        return reply({ error: { code: -32006, message: `Too many subscriptions on the connection (at most ${maxSubscriptions})` } });
      const subscription = `sub-${nextSubscription++}`;
      subscriptions.add(subscription);
      return setTimeout(() => reply({ result: subscription }), subscribeDelay);
    }
    const respond = () => {
      try {
        reply({ result: current(method, params) ?? null });
      } catch (error) {
        const code = error instanceof FakeRpcError ? error.code : -32603;
        reply({ error: { code, message: (error as Error).message } });
      }
    };
    if (!callDelay.methods.has(method)) return respond();
    busy.now += 1;
    busy.most = Math.max(busy.most, busy.now);
    setTimeout(() => {
      busy.now -= 1;
      respond();
    }, callDelay.ms);
  };

  server.on('connection', (socket) => {
    held.set(socket, new Set());
    socket.on('close', () => held.delete(socket));
    socket.on('error', () => socket.terminate());
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as
        | { id: unknown; method: string; params?: unknown[] }
        | { id: unknown; method: string; params?: unknown[] }[];
      for (const call of Array.isArray(message) ? message : [message]) {
        const params = call.params ?? [];
        calls.push({ method: call.method, params });
        answer(socket, call.id, call.method, params);
      }
    });
  });

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${port}`,
    calls,
    callsOf: (method) => calls.filter((call) => call.method === method),
    setHandler(next) {
      current = next;
    },
    setSubscribeDelay(ms) {
      subscribeDelay = ms;
    },
    setCallDelay(ms, methods) {
      callDelay = { ms, methods: new Set(methods) };
    },
    busy,
    setMaxSubscriptionsPerConnection(max) {
      maxSubscriptions = max;
    },
    subscriptionsPerConnection: () => [...held.values()].map((subscriptions) => subscriptions.size),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
