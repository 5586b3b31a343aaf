// The caching JSON-RPC proxy: WebSocket and HTTP POST on one port, single
// calls and batches, answers that cannot change served from a byte-bounded
// cache, identical calls in flight merged, subscriptions shared between
// clients. /health and /metrics answer plain GETs.
//
// It meets strangers: every message is checked before it is used (see
// jsonRpc.ts), only allowed methods reach a node (methods.ts), only answers of
// the right shape are kept (resultShapes.ts), and connections take turns
// (fairScheduler.ts). No input ends the process: every connection and every
// message has its own catch.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, Registry } from 'prom-client';
import { WebSocketServer, type WebSocket } from 'ws';

import { SingleFlight } from '../cache/singleFlight';
import type { Logger } from '../logger';
import { decide } from './cachePolicy';
import { FairScheduler, LaneClosedError, type Lane } from './fairScheduler';
import { RpcCode } from '../rpc/rpcCodes';
import { failure, parseMessage, readCall, RpcFailure, success, type RpcCall, type RpcResponse } from './jsonRpc';
import { MethodPolicy, type MethodPolicyOptions, type SubscriptionKind } from './methods';
import type { ProxyLimits } from './proxyConfig';
import { judge, type Verdict } from './resultShapes';
import { NoUpstreamError, UpstreamRpcError, type UpstreamPool } from './upstreams';

export interface ProxyOptions extends ProxyLimits {
  host: string;
  port: number;
  cacheMaxBytes: number;
  maxBodyBytes: number;
  methods: MethodPolicyOptions;
}

/** One client connection: its turn at the scheduler and what it subscribed to. */
interface Connection {
  lane: Lane;
  socket?: WebSocket;
  /** client subscription id -> how to leave it */
  subscriptions: Map<string, () => Promise<void>>;
  pendingSubscriptions: number;
  closed: boolean;
}

/** One upstream subscription fanned out to every client that asked for the same thing. */
interface SharedSubscription {
  clients: Map<string, (result: unknown) => void>;
  /** Clients waiting for it to open: it is not closed under them. */
  joining: number;
  last?: unknown;
  ready: Promise<() => Promise<void>>;
}

const PER_TURN = 64;
const HEARTBEAT_MS = 30_000;

export class RpcProxy {
  readonly metrics = new Registry();
  private readonly cache: LRUCache<string, string>;
  private readonly calls = new SingleFlight<{ result: unknown; verdict: Verdict }>();
  private readonly shared = new Map<string, SharedSubscription>();
  private readonly policy: MethodPolicy;
  private readonly scheduler: FairScheduler;
  private readonly httpConnections = new WeakMap<Socket, Connection>();
  private nextSubscriptionId = 1;
  private server?: Server;
  private wss?: WebSocketServer;
  private heartbeat?: NodeJS.Timeout;
  private readonly hits = new Counter({ name: 'proxy_cache_hits_total', help: 'Calls answered from the cache', registers: [this.metrics] });
  private readonly misses = new Counter({ name: 'proxy_cache_misses_total', help: 'Cacheable calls sent upstream', registers: [this.metrics] });
  private readonly merged = new Counter({ name: 'proxy_merged_calls_total', help: 'Calls answered by a call already in flight', registers: [this.metrics] });
  private readonly upstreamCalls = new Counter({ name: 'proxy_upstream_calls_total', help: 'Calls sent to upstream nodes', registers: [this.metrics] });
  private readonly refused = new Counter({
    name: 'proxy_refused_calls_total',
    help: 'Calls answered with an error without reaching a node, by reason',
    labelNames: ['reason'],
    registers: [this.metrics],
  });

  constructor(
    private readonly pool: UpstreamPool,
    private readonly options: ProxyOptions,
    private readonly logger: Logger,
  ) {
    this.cache = new LRUCache({ maxSize: Math.max(1, options.cacheMaxBytes), sizeCalculation: (value, key) => Buffer.byteLength(value) + key.length });
    this.policy = new MethodPolicy(options.methods);
    this.scheduler = new FairScheduler({ perLane: Math.max(1, options.maxInFlightPerConnection), perTurn: PER_TURN });
    const cache = this.cache;
    new Gauge({ name: 'proxy_cache_bytes', help: 'Bytes held by the cache', registers: [this.metrics], collect() { this.set(cache.calculatedSize ?? 0); } });
    const upstreamGauge = (name: string, help: string, read: (upstream: UpstreamPool['upstreams'][number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['upstream'],
        registers: [this.metrics],
        collect() {
          for (const upstream of pool.upstreams) this.set({ upstream: upstream.url }, read(upstream));
        },
      });
    upstreamGauge('proxy_upstream_available', 'Whether the upstream takes calls now (1) or not (0)', (u) => Number(u.available));
    upstreamGauge('proxy_upstream_outstanding', 'Calls in flight at the upstream', (u) => u.outstanding);
    upstreamGauge('proxy_upstream_finalized_height', 'The finalized height the upstream last reported', (u) => u.finalizedNumber);
    upstreamGauge('proxy_upstream_best_height', 'The best height the upstream last reported', (u) => u.bestNumber);
  }

  async listen(): Promise<string> {
    const { headersTimeoutMs, requestTimeoutMs } = this.options;
    this.server = createServer(
      { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, headersTimeoutMs) },
      (req, res) => this.onHttp(req, res),
    );
    this.server.maxConnections = this.options.maxConnections;
    this.server.on('connection', (socket: Socket) => socket.on('error', () => socket.destroy()));
    this.wss = new WebSocketServer({ server: this.server, maxPayload: this.options.maxBodyBytes });
    this.wss.on('error', (error) => this.logger.warn({ err: error }, 'websocket server error'));
    this.wss.on('connection', (socket) => this.onSocket(socket));
    // A peer that stopped answering pings is gone; its subscriptions go with it.
    const alive = new WeakSet<WebSocket>();
    this.wss.on('connection', (socket) => {
      alive.add(socket);
      socket.on('pong', () => alive.add(socket));
    });
    this.heartbeat = setInterval(() => {
      for (const socket of this.wss?.clients ?? []) {
        if (!alive.has(socket)) socket.terminate();
        else {
          alive.delete(socket);
          socket.ping();
        }
      }
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port, this.options.host, () => resolve());
    });
    const address = this.server.address();
    const port = typeof address === 'object' && address ? address.port : this.options.port;
    return `127.0.0.1:${port}`;
  }

  /** Stops taking connections, lets answers in flight finish, then closes upstreams. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    for (const client of this.wss?.clients ?? []) client.close(1001, 'proxy shutting down');
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    await this.calls.drain();
    await this.pool.close();
  }

  private onHttp(req: IncomingMessage, res: ServerResponse): void {
    res.on('error', () => undefined);
    this.answerHttp(req, res).catch((error: unknown) => {
      // A client that left mid-body (`aborted`), or anything unforeseen: this request ends, nothing else.
      if (!req.destroyed && !res.headersSent) {
        this.logger.warn({ err: error }, 'http request failed');
        writeJson(res, 500, failure(null, RpcCode.internalError, 'Internal error'));
      } else res.destroy();
    });
  }

  private async answerHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/health') {
      const upstreams = this.pool.upstreams.map((u) => ({ url: u.url, available: u.available, best: u.bestNumber, finalized: u.finalizedNumber, outstanding: u.outstanding }));
      const ok = upstreams.some((u) => u.available);
      writeJson(res, ok ? 200 : 503, { status: ok ? 'ok' : 'no upstream', upstreams });
      return;
    }
    if (req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'Content-Type': this.metrics.contentType }).end(await this.metrics.metrics());
      return;
    }
    if (req.method !== 'POST') {
      writeJson(res, 405, failure(null, RpcCode.invalidRequest, 'POST a JSON-RPC request'));
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (declared > this.options.maxBodyBytes) {
      writeJson(res, 413, failure(null, RpcCode.invalidRequest, 'request too large'), true);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > this.options.maxBodyBytes) {
        writeJson(res, 413, failure(null, RpcCode.invalidRequest, 'request too large'), true);
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const answer = await this.handleText(Buffer.concat(chunks).toString('utf8'), this.httpConnection(req.socket));
    if (answer === undefined) res.writeHead(204).end();
    else res.writeHead(200, { 'Content-Type': 'application/json' }).end(answer);
  }

  /** HTTP keep-alive connections take turns like WebSockets do. */
  private httpConnection(socket: Socket): Connection {
    let connection = this.httpConnections.get(socket);
    if (!connection) {
      const created = newConnection(this.scheduler.lane());
      socket.once('close', () => closeConnection(created));
      this.httpConnections.set(socket, created);
      connection = created;
    }
    return connection;
  }

  private onSocket(socket: WebSocket): void {
    const connection = newConnection(this.scheduler.lane(), socket);
    // Protocol violations and oversized frames: ws closes the socket; the process goes on.
    socket.on('error', () => socket.terminate());
    let paused = false;
    socket.on('message', (data) => {
      if (!paused && connection.lane.queued >= this.options.maxQueuedPerConnection) {
        paused = true;
        socket.pause(); // read no more of this client until it has caught up
      }
      this.handleText(data.toString(), connection)
        .catch((error: unknown) => {
          this.logger.warn({ err: error }, 'websocket message failed');
          return JSON.stringify(failure(null, RpcCode.internalError, 'Internal error'));
        })
        .then((answer) => {
          if (answer !== undefined && socket.readyState === socket.OPEN) socket.send(answer);
          if (paused && connection.lane.queued < this.options.maxQueuedPerConnection / 2) {
            paused = false;
            socket.resume();
          }
        })
        .catch(() => undefined);
    });
    socket.on('close', () => this.release(connection));
  }

  private release(connection: Connection): void {
    closeConnection(connection);
    for (const leave of connection.subscriptions.values()) leave().catch(() => undefined);
    connection.subscriptions.clear();
  }

  /** One JSON text in, one JSON text out (or nothing, when only notifications came). */
  private async handleText(text: string, connection: Connection): Promise<string | undefined> {
    const parsed = parseMessage(text);
    if (!parsed.ok) return this.refuse('malformed', parsed.response);
    if (!Array.isArray(parsed.value)) {
      const answer = await this.handleOne(parsed.value, connection);
      return answer && JSON.stringify(answer);
    }
    const batch = parsed.value;
    if (batch.length === 0) return this.refuse('malformed', failure(null, RpcCode.invalidRequest, 'Invalid Request: empty batch'));
    if (batch.length > this.options.maxBatchSize) {
      return this.refuse('batch', failure(null, RpcCode.batchTooLarge, `Batch too large: ${batch.length} calls, at most ${this.options.maxBatchSize}`));
    }
    const answers = await Promise.all(batch.map((request) => this.handleOne(request, connection)));
    const present = answers.filter((answer): answer is RpcResponse => answer !== undefined);
    return present.length ? JSON.stringify(present) : undefined;
  }

  private refuse(reason: string, response: RpcResponse): string {
    this.refused.inc({ reason });
    return JSON.stringify(response);
  }

  private async handleOne(value: unknown, connection: Connection): Promise<RpcResponse | undefined> {
    const read = readCall(value);
    if ('response' in read) {
      this.refused.inc({ reason: 'malformed' });
      return read.response;
    }
    const { call } = read;
    let response: RpcResponse;
    try {
      response = success(call.id, await this.scheduler.submit(connection.lane, () => this.run(call, connection)));
    } catch (error) {
      if (error instanceof LaneClosedError) return undefined;
      response = this.errorResponse(call, error);
    }
    return call.notification ? undefined : response;
  }

  private errorResponse(call: RpcCall, error: unknown): RpcResponse {
    if (error instanceof RpcFailure || error instanceof UpstreamRpcError) return failure(call.id, error.code, error.message, error.data);
    if (error instanceof NoUpstreamError) return failure(call.id, RpcCode.noUpstream, `no upstream: ${error.message}`);
    this.logger.warn({ err: error, method: call.method }, 'upstream call failed');
    return failure(call.id, RpcCode.noUpstream, `no upstream: ${(error as Error)?.message ?? String(error)}`);
  }

  private async run(call: RpcCall, connection: Connection): Promise<unknown> {
    const { method, params } = call;
    if (!this.policy.permits(method)) {
      this.refused.inc({ reason: 'method' });
      throw new RpcFailure(RpcCode.methodNotFound, `Method not found: ${method.slice(0, 64)}`);
    }
    const problem = this.policy.paramsProblem(method, params);
    if (problem) {
      this.refused.inc({ reason: 'params' });
      throw new RpcFailure(RpcCode.invalidParams, `Invalid params: ${problem}`);
    }
    const kind = this.policy.subscription(method);
    if (kind || this.policy.isUnsubscribe(method)) {
      if (!connection.socket) throw new RpcFailure(RpcCode.methodNotFound, 'Subscriptions need a WebSocket connection');
      if (kind) return this.subscribe(method, params, kind, connection);
      const leave = connection.subscriptions.get(String(params[0]));
      if (!leave) return false;
      connection.subscriptions.delete(String(params[0]));
      await leave();
      return true;
    }
    const result = await this.answer(method, params);
    // The node's list would name methods this proxy refuses.
    if (method === 'rpc_methods' && isMethodList(result)) return { ...result, methods: result.methods.filter((name) => this.policy.permits(name)) };
    return result;
  }

  private async answer(method: string, params: unknown[]): Promise<unknown> {
    const decision = decide(method, params);
    let cacheKey: string | undefined;
    let minFinalized: number | undefined;
    if (decision.kind === 'immutable') cacheKey = decision.key;
    else if (decision.kind === 'finalizedNumber' && this.pool.hasFinalized(decision.number)) {
      // The hash of height n may be kept only as told by a node that has itself finalized n.
      cacheKey = decision.key;
      minFinalized = decision.number;
    }
    if (cacheKey) {
      const cached = this.cache.get(cacheKey);
      if (cached !== undefined) {
        this.hits.inc();
        return JSON.parse(cached) as unknown;
      }
      this.misses.inc();
    }
    const mergeKey = cacheKey ?? (decision.kind === 'passThrough' ? decision.mergeKey : decision.key);
    const send = () => {
      this.upstreamCalls.inc();
      // Only what may be kept is judged: anything else is the node's answer to pass on.
      const verdictOf = cacheKey ? (result: unknown) => judge(method, params, result) : () => 'serve' as const;
      return this.pool.call(method, params, { retry: mergeKey !== undefined, minFinalized, judge: verdictOf });
    };
    if (!mergeKey) return (await send()).result;
    const { promise, joined } = this.calls.run(mergeKey, send);
    if (joined) this.merged.inc();
    const { result, verdict } = await promise;
    if (cacheKey && verdict === 'cache' && !this.cache.has(cacheKey)) this.cache.set(cacheKey, JSON.stringify(result));
    return result;
  }

  private subscribe(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<string> {
    if (connection.subscriptions.size + connection.pendingSubscriptions >= this.options.maxSubscriptionsPerConnection) {
      this.refused.inc({ reason: 'subscriptions' });
      throw new RpcFailure(RpcCode.tooManySubscriptions, `Too many subscriptions on this connection (at most ${this.options.maxSubscriptionsPerConnection})`);
    }
    return kind.shared ? this.joinShared(method, params, kind, connection) : this.openPrivate(method, params, kind, connection);
  }

  private async joinShared(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<string> {
    const key = `${method}:${JSON.stringify(params)}`;
    const shared = this.shared.get(key) ?? this.openShared(key, method, params, kind);
    const subscriptionId = this.newSubscriptionId();
    shared.joining += 1;
    connection.pendingSubscriptions += 1;
    try {
      await shared.ready;
    } finally {
      shared.joining -= 1;
      connection.pendingSubscriptions -= 1;
    }
    const leave = () => this.leaveShared(key, shared, subscriptionId);
    if (connection.closed) {
      // Gone while the node was answering: nothing may outlive the client that asked.
      await leave();
      throw new LaneClosedError();
    }
    const send = notifier(connection, kind.notification, subscriptionId);
    shared.clients.set(subscriptionId, send);
    connection.subscriptions.set(subscriptionId, leave);
    // A late joiner gets the latest value at once, as a fresh upstream subscription would send it.
    if (shared.last !== undefined) setImmediate(() => send(shared.last));
    return subscriptionId;
  }

  private openShared(key: string, method: string, params: unknown[], kind: SubscriptionKind): SharedSubscription {
    const created: SharedSubscription = { clients: new Map(), joining: 0, ready: Promise.resolve(async () => undefined) };
    created.ready = this.openUpstream(method, params, kind, (result) => {
      created.last = result;
      for (const send of created.clients.values()) send(result);
    });
    created.ready.catch(() => this.shared.get(key) === created && this.shared.delete(key));
    this.shared.set(key, created);
    return created;
  }

  private async leaveShared(key: string, shared: SharedSubscription, subscriptionId: string): Promise<void> {
    shared.clients.delete(subscriptionId);
    if (shared.clients.size > 0 || shared.joining > 0) return;
    if (this.shared.get(key) === shared) this.shared.delete(key);
    const close = await shared.ready.catch(() => undefined);
    await close?.();
  }

  /** A subscription about this client's own business (its transaction): one upstream subscription each. */
  private async openPrivate(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<string> {
    const subscriptionId = this.newSubscriptionId();
    const send = notifier(connection, kind.notification, subscriptionId);
    connection.pendingSubscriptions += 1;
    let close: () => Promise<void>;
    try {
      close = await this.openUpstream(method, params, kind, send);
    } finally {
      connection.pendingSubscriptions -= 1;
    }
    if (connection.closed) {
      await close();
      throw new LaneClosedError();
    }
    connection.subscriptions.set(subscriptionId, close);
    return subscriptionId;
  }

  private async openUpstream(method: string, params: unknown[], kind: SubscriptionKind, onResult: (result: unknown) => void): Promise<() => Promise<void>> {
    const upstream = this.pool.subscriptionUpstream();
    if (!upstream) throw new NoUpstreamError('no node is available');
    this.upstreamCalls.inc();
    try {
      return await upstream.subscribe(kind.notification, method, kind.unsubscribe, params, onResult);
    } catch (error) {
      throw error instanceof UpstreamRpcError ? error : new NoUpstreamError((error as Error)?.message ?? String(error));
    }
  }

  private newSubscriptionId(): string {
    return `0x${(this.nextSubscriptionId++).toString(16).padStart(16, '0')}`;
  }
}

function newConnection(lane: Lane, socket?: WebSocket): Connection {
  return { lane, socket, subscriptions: new Map(), pendingSubscriptions: 0, closed: false };
}

function closeConnection(connection: Connection): void {
  connection.closed = true;
  connection.lane.close();
}

function notifier(connection: Connection, notification: string, subscriptionId: string): (result: unknown) => void {
  return (result) => {
    const { socket } = connection;
    if (socket && socket.readyState === socket.OPEN) {
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: notification, params: { subscription: subscriptionId, result } }));
    }
  };
}

function isMethodList(value: unknown): value is { methods: string[] } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { methods?: unknown }).methods);
}

function writeJson(res: ServerResponse, status: number, body: unknown, close = false): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...(close ? { Connection: 'close' } : {}) }).end(JSON.stringify(body));
}
