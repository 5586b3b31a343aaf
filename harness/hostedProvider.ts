// A stand-in for a hosted RPC provider: JSON-RPC over HTTP/1.1, and over
// HTTP/2 with TLS (a self-signed certificate made at start; HTTP/1.1 is still
// offered by ALPN), in front of a node it reaches over WebSocket. Like the
// providers measured in the field it adds a fixed delay to every request (the
// distance), and can cap requests in flight and per second (answering 429
// with Retry-After past either), cap batch sizes, refuse batches altogether,
// or throttle everything. It counts what reaches it: requests, calls, the
// sequential rounds of requests, and what it refused.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';

export interface ProviderLimits {
  /** Added to every request and answer (429s included): half on the way in, half on the way out. */
  delayMs: number;
  /** Requests in flight at once; past it, 429. 0: no cap. */
  maxInFlight: number;
  /** Requests per second (bursts of one second's worth); past it, 429. 0: no cap. */
  ratePerSecond: number;
  /** The Retry-After of its 429s, in seconds. */
  retryAfterSeconds: number;
  /** Calls in one batch; a larger batch gets a JSON-RPC -32010 error. 0: no cap. */
  maxBatch: number;
  /** Every batch gets HTTP 400, as providers that take single calls only answer. */
  refuseBatches: boolean;
  /** Every request gets 429: a provider that will not serve us at all for now. */
  throttleEverything: boolean;
  /** Calls answered with a JSON-RPC "too many requests" error, inside an answer otherwise served (providers that count batch items). */
  throttleCall?: (method: string, params: unknown[]) => boolean;
}

export interface ProviderCounts {
  requests: number;
  /** TCP (or TLS) connections clients opened. */
  connections: number;
  /** Requests that reached it over HTTP/2. */
  http2Requests: number;
  calls: number;
  /** Calls the node answered (requests refused carry none). */
  callsServed: number;
  throttled: number;
  batchesRefused: number;
  /** Times requests in flight went from none to one: sequential rounds, when one client asks at a time. */
  rounds: number;
  peakInFlight: number;
  /** Time spent waiting for the node's answers, summed over requests (what the provider itself took). */
  nodeMs: number;
  methods: Record<string, number>;
}

export interface HostedProvider {
  url: string;
  /** The certificate a client must trust (PEM) and its file, with `tls`. */
  ca?: string;
  caPath?: string;
  counts: ProviderCounts;
  limits: ProviderLimits;
  reset(): void;
  setLimits(limits: Partial<ProviderLimits>): void;
  close(): Promise<void>;
}

export const NO_LIMITS: ProviderLimits = {
  delayMs: 0,
  maxInFlight: 0,
  ratePerSecond: 0,
  retryAfterSeconds: 1,
  maxBatch: 0,
  refuseBatches: false,
  throttleEverything: false,
};

const MAX_BODY_BYTES = 16 * 1024 * 1024;

interface RpcCall {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

/** `tls`: HTTPS, offering HTTP/2 and HTTP/1.1 (true) or HTTP/1.1 only ('http1'). */
export async function startHostedProvider(nodeWsUrl: string, options: Partial<ProviderLimits> & { tls?: boolean | 'http1' } = {}): Promise<HostedProvider> {
  const limits: ProviderLimits = { ...NO_LIMITS, ...options };
  const counts = emptyCounts();
  const node = await connectNode(nodeWsUrl);
  let inFlight = 0;
  let tokens = limits.ratePerSecond;
  let tokensAt = Date.now();

  const takeToken = () => {
    if (limits.ratePerSecond <= 0) return true;
    const now = Date.now();
    tokens = Math.min(limits.ratePerSecond, tokens + ((now - tokensAt) / 1000) * limits.ratePerSecond);
    tokensAt = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const handle = async (req: Request, res: Response) => {
    counts.requests += 1;
    if (req.httpVersion === '2.0') counts.http2Requests += 1;
    if (inFlight === 0) counts.rounds += 1;
    inFlight += 1;
    counts.peakInFlight = Math.max(counts.peakInFlight, inFlight);
    let finished = false;
    const done = () => {
      if (!finished) {
        finished = true;
        inFlight -= 1;
      }
    };
    res.on('close', done);
    res.on('finish', done);
    const half = limits.delayMs / 2;
    const answer = async (status: number, body: string, headers: Record<string, string> = {}) => {
      await wait(half);
      // Over for the provider once the answer leaves (so a client's next round counts as one).
      done();
      if (res.writableEnded || res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    const overLimit = limits.throttleEverything || (limits.maxInFlight > 0 && inFlight > limits.maxInFlight) || !takeToken();
    // A refused request is over for the provider at once (its answer still has the way back to go).
    if (overLimit) done();
    const body = await readBody(req);
    await wait(half);
    if (overLimit) {
      counts.throttled += 1;
      return answer(429, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'Too many requests' } }), {
        'retry-after': String(limits.retryAfterSeconds),
      });
    }
    if (req.method !== 'POST' || body === undefined)
      return answer(400, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } }));
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return answer(200, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    }
    if (Array.isArray(parsed)) {
      if (limits.refuseBatches) {
        counts.batchesRefused += 1;
        return answer(400, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Batch requests are not supported' } }));
      }
      if (limits.maxBatch > 0 && parsed.length > limits.maxBatch) {
        counts.batchesRefused += 1;
        return answer(
          200,
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32010, message: `The batch request was too large (at most ${limits.maxBatch})` } }),
        );
      }
      const asked = performance.now();
      const answers = await Promise.all(parsed.map((call: RpcCall) => forward(call)));
      counts.nodeMs += performance.now() - asked;
      return answer(200, `[${answers.join(',')}]`);
    }
    const asked = performance.now();
    const single = await forward(parsed as RpcCall);
    counts.nodeMs += performance.now() - asked;
    return answer(200, single);
  };

  const forward = async (call: RpcCall): Promise<string> => {
    counts.calls += 1;
    if (typeof call !== 'object' || call === null || typeof call.method !== 'string') {
      return JSON.stringify({ jsonrpc: '2.0', id: call?.id ?? null, error: { code: -32600, message: 'Invalid request' } });
    }
    counts.methods[call.method] = (counts.methods[call.method] ?? 0) + 1;
    if (limits.throttleCall?.(call.method, Array.isArray(call.params) ? call.params : [])) {
      counts.throttled += 1;
      return JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, error: { code: -32005, message: 'Too many requests' } });
    }
    const rest = await node.call(call.method, Array.isArray(call.params) ? call.params : []);
    counts.callsServed += 1;
    return `{"id":${JSON.stringify(call.id ?? null)},${rest}`;
  };

  const listener = (req: Request, res: Response) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };

  let ca: string | undefined;
  let caPath: string | undefined;
  let certDir: string | undefined;
  let server: ReturnType<typeof createHttpServer> | ReturnType<typeof createSecureServer> | ReturnType<typeof createHttpsServer>;
  if (options.tls) {
    certDir = mkdtempSync(join(tmpdir(), 'fastcar-provider-'));
    const { key, cert } = selfSignedCertificate(certDir);
    ca = cert;
    caPath = join(certDir, 'cert.pem');
    server =
      options.tls === 'http1'
        ? createHttpsServer({ key, cert }, listener)
        : createSecureServer({ key, cert, allowHTTP1: true, settings: { maxConcurrentStreams: 128 } }, listener);
  } else {
    server = createHttpServer(listener);
    server.keepAliveTimeout = 30_000;
  }
  server.on(options.tls ? 'secureConnection' : 'connection', () => (counts.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sessions = new Set<{ destroy(): void }>();
  server.on('session', (session: { destroy(): void; once(event: string, fn: () => void): void }) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    ca,
    caPath,
    counts,
    limits,
    reset() {
      Object.assign(counts, emptyCounts());
    },
    setLimits(changed) {
      Object.assign(limits, changed);
      if (changed.ratePerSecond !== undefined) tokens = changed.ratePerSecond;
    },
    async close() {
      for (const session of sessions) session.destroy();
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      node.close();
      if (certDir) rmSync(certDir, { recursive: true, force: true });
    },
  };
}

function emptyCounts(): ProviderCounts {
  return {
    requests: 0,
    connections: 0,
    http2Requests: 0,
    calls: 0,
    callsServed: 0,
    throttled: 0,
    batchesRefused: 0,
    rounds: 0,
    peakInFlight: 0,
    nodeMs: 0,
    methods: {},
  };
}

function readBody(req: Request): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', () => resolve(undefined));
  });
}

/** A certificate for 127.0.0.1 made by openssl, good for a day. */
function selfSignedCertificate(dir: string): { key: string; cert: string } {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
}

interface NodeLink {
  /** The node's answer as it sent it, less its opening `{"id":n,`: the caller puts its own id in front. */
  call(method: string, params: unknown[]): Promise<string>;
  close(): void;
}

/** Chopsticks (and Substrate nodes) open an answer with its id: the rest is passed on unparsed. */
const LEADING_ID = /^\{"id":(\d+),/;

/** One WebSocket to the node; answers kept as the node sent them (result or error). */
async function connectNode(url: string): Promise<NodeLink> {
  const socket = new WebSocket(url, { maxPayload: 256 * 1024 * 1024 });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let nextId = 0;
  const pending = new Map<number, (rest: string) => void>();
  socket.on('message', (data) => {
    const text = String(data);
    const leading = LEADING_ID.exec(text);
    let id: number | undefined;
    let rest: string;
    if (leading) {
      id = Number(leading[1]);
      rest = text.slice(leading[0].length);
    } else {
      const { id: parsedId, ...others } = JSON.parse(text) as { id?: number };
      id = parsedId;
      rest = JSON.stringify(others).slice(1);
    }
    const waiting = typeof id === 'number' ? pending.get(id) : undefined;
    if (!waiting) return;
    pending.delete(id as number);
    waiting(rest);
  });
  socket.on('close', () => {
    for (const waiting of pending.values()) waiting('"jsonrpc":"2.0","error":{"code":-32603,"message":"node connection lost"}}');
    pending.clear();
  });
  return {
    call(method, params) {
      const id = ++nextId;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    },
    close: () => socket.close(),
  };
}
