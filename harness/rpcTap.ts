// An RPC tap: a WebSocket hop between a client and the node (not the relay chain) that counts the JSON-RPC calls
// that cross it and the sequential rounds they take, and can add a fixed delay
// to every message in each direction, as a node on another host would. A
// route can answer chosen calls itself, change their parameters on the way
// (harness/spamBlock.ts serves a made-up block that way), or cut the client's
// connection a while after a chosen call, leaving it unanswered.
import { WebSocket, WebSocketServer, type RawData } from 'ws';

export interface TapCounts {
  calls: number;
  /** Times the number of unanswered calls went from zero to one. */
  waves: number;
  /** The most calls unanswered at once. */
  peakPending: number;
  /** Calls by method. */
  methods: Record<string, number>;
}

export interface RpcTap {
  url: string;
  counts: TapCounts;
  reset(): void;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export interface TappedCall {
  id?: unknown;
  method: string;
  params?: unknown[];
}

/**
 * What to do with one call: answer it here, send it on with other parameters, cut the
 * client's connection `dropAfterMs` later without answering it, or (undefined) pass it as it is.
 */
export type TapRoute = (call: TappedCall) => { result: unknown } | { params: unknown[] } | { dropAfterMs: number } | undefined;

/**
 * `dropFromNode`, when given, is asked about each message the node sends; those it
 * returns true for never reach the client (a subscription notification lost on the way).
 */
export async function startTap(upstreamUrl: string, delayMs = 0, port = 0, route?: TapRoute, dropFromNode?: (message: unknown) => boolean): Promise<RpcTap> {
  const counts: TapCounts = { calls: 0, waves: 0, peakPending: 0, methods: {} };
  let pending = 0;
  const server = new WebSocketServer({ host: '127.0.0.1', port, maxPayload: 256 * 1024 * 1024 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  let delay = delayMs;
  const later = (fn: () => void) => (delay > 0 ? setTimeout(fn, delay) : fn());

  server.on('connection', (client) => {
    const upstream = new WebSocket(upstreamUrl, { maxPayload: 256 * 1024 * 1024 });
    const queued: (RawData | string)[] = [];
    upstream.on('open', () => {
      for (const message of queued.splice(0)) upstream.send(message);
    });
    client.on('message', (received) => {
      const routed = route && routeOne(received, route);
      if (routed && 'dropAfterMs' in routed) {
        setTimeout(() => client.terminate(), routed.dropAfterMs);
        return;
      }
      if (routed && 'answer' in routed) {
        later(() => client.readyState === WebSocket.OPEN && client.send(routed.answer));
        return;
      }
      const message = routed?.forward ?? received;
      for (const call of parse(message)) {
        if (call.method && call.id !== undefined) {
          counts.calls += 1;
          counts.methods[call.method] = (counts.methods[call.method] ?? 0) + 1;
          if (pending === 0) counts.waves += 1;
          pending += 1;
          counts.peakPending = Math.max(counts.peakPending, pending);
        }
      }
      later(() => (upstream.readyState === WebSocket.OPEN ? upstream.send(message) : queued.push(message)));
    });
    // Passed on like any frame: a client's unsolicited pong acknowledges the node's answers (src/rpc/wsRpcClient.ts).
    client.on('pong', (data) => later(() => upstream.readyState === WebSocket.OPEN && upstream.pong(data)));
    upstream.on('message', (message) => {
      if (dropFromNode?.(JSON.parse(message.toString()))) return;
      for (const answer of parse(message)) if (answer.id !== undefined && answer.id !== null && !answer.method) pending = Math.max(0, pending - 1);
      later(() => client.readyState === WebSocket.OPEN && client.send(message));
    });
    closeTogether(client, upstream);
  });

  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return {
    url: `ws://127.0.0.1:${boundPort}`,
    counts,
    setDelay(ms: number) {
      delay = ms;
    },
    reset() {
      counts.calls = 0;
      counts.waves = 0;
      counts.peakPending = 0;
      counts.methods = {};
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

/** Either socket of a tapped pair closing or failing closes both. */
function closeTogether(client: WebSocket, upstream: WebSocket): void {
  const closeBoth = () => {
    client.close();
    upstream.close();
  };
  for (const socket of [client, upstream]) {
    socket.on('close', closeBoth);
    socket.on('error', closeBoth);
  }
}

/** A single call (batches pass as they are) routed: its answer, or the call to send instead. */
function routeOne(message: RawData, route: TapRoute): { answer: string } | { forward: string } | { dropAfterMs: number } | undefined {
  const [call] = parse(message);
  if (!call?.method || message.toString().trimStart().startsWith('[')) return undefined;
  const decision = route(call as TappedCall);
  if (!decision) return undefined;
  if ('dropAfterMs' in decision) return decision;
  if ('result' in decision) return { answer: JSON.stringify({ jsonrpc: '2.0', id: call.id, result: decision.result }) };
  return { forward: JSON.stringify({ ...call, params: decision.params }) };
}

function parse(message: RawData | string): { id?: unknown; method?: string }[] {
  try {
    const value = JSON.parse(message.toString()) as unknown;
    return (Array.isArray(value) ? value : [value]) as { id?: unknown; method?: string }[];
  } catch {
    return [];
  }
}

export interface MemoRelay {
  url: string;
  /** Calls answered from memory so far. */
  readonly memoHits: number;
  close(): Promise<void>;
}

/**
 * An RPC tap that answers repeats of chosen calls from memory, as a real node
 * answers a cheap call in a fraction of a millisecond where the devnet runs its runtime
 * for it (polkadot-rest-api asks `Core_version` on every request). Everything else
 * passes as raw bytes: only the client's calls are read, and of the node's messages only
 * those small enough to be a remembered call's answer.
 */
export async function startMemoTap(upstreamUrl: string, remember: (call: TappedCall) => boolean, largestAnswer = 4096): Promise<MemoRelay> {
  const known = new Map<string, unknown>();
  let memoHits = 0;
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 256 * 1024 * 1024 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  server.on('connection', (client) => {
    const upstream = new WebSocket(upstreamUrl, { maxPayload: 256 * 1024 * 1024 });
    const queued: RawData[] = [];
    /** Remembered calls on their way to the node: id -> memory key. */
    const awaited = new Map<unknown, string>();
    upstream.on('open', () => {
      for (const message of queued.splice(0)) upstream.send(message);
    });
    client.on('message', (message) => {
      const [call] = parse(message) as TappedCall[];
      if (call?.method && !message.toString().trimStart().startsWith('[') && remember(call)) {
        const key = JSON.stringify([call.method, call.params ?? []]);
        if (known.has(key)) {
          memoHits++;
          client.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: known.get(key) }));
          return;
        }
        awaited.set(call.id, key);
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(message);
      else queued.push(message);
    });
    upstream.on('message', (message: RawData, isBinary) => {
      if (awaited.size > 0 && (message as Buffer).length < largestAnswer) {
        const [answer] = parse(message) as { id?: unknown; result?: unknown }[];
        const key = answer && awaited.get(answer.id);
        if (key !== undefined && answer) {
          awaited.delete(answer.id);
          if ('result' in answer) known.set(key, answer.result);
        }
      }
      if (client.readyState === WebSocket.OPEN) client.send(message, { binary: isBinary });
    });
    closeTogether(client, upstream);
  });
  const address = server.address();
  return {
    url: `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    get memoHits() {
      return memoHits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
