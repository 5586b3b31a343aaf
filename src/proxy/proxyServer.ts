// The caching JSON-RPC proxy: WebSocket and HTTP POST on one port, single
// calls and batches, answers that cannot change served from a memory-bounded
// cache, identical calls in flight merged, subscriptions shared between
// clients. /health and /metrics answer plain GETs.
//
// It meets strangers: every message is checked before it is used (see
// jsonRpc.ts), only allowed methods reach a node (methods.ts), only answers of
// the right shape are kept (resultShapes.ts), connections take turns and each
// client address has caps on connections, calls in flight and subscriptions
// (fairScheduler.ts, clients.ts), and answers are bounded in size and written
// only as fast as their client reads them (outgoing.ts). No input ends the
// process: every connection and every message has its own catch.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Counter, Gauge, Registry } from 'prom-client';
import { WebSocketServer, type WebSocket } from 'ws';

import { urlForLogs, type Logger } from '../logger';
import type { HttpRpcCounts } from '../rpc/httpTransport';
import { NodeTimeoutError, RpcError } from '../rpc/nodeErrors';
import { RpcCode } from '../rpc/rpcCodes';
import { AnswerCache, resultText, type ResultText } from './answerCache';
import { decide } from './cachePolicy';
import { ClientBook, clientKey, type Client } from './clients';
import { FairScheduler, LaneClosedError, type Lane } from './fairScheduler';
import { failure, parseMessage, readCall, type RpcCall, type RpcId, type RpcResponse } from './jsonRpc';
import { MergedCalls } from './mergedCalls';
import { MethodPolicy, type MethodPolicyOptions, type SubscriptionKind } from './methods';
import { Outgoing, WebSocketWriter, writeHttpAnswer } from './outgoing';
import type { ProxyLimits } from './proxyConfig';
import { judge } from './resultShapes';
import { Slots } from './slots';
import { AbandonedCallError, NoUpstreamError, type UpstreamPool } from './upstreams';

export interface ProxyOptions extends ProxyLimits {
  host: string;
  port: number;
  cacheMaxBytes: number;
  maxBodyBytes: number;
  methods: MethodPolicyOptions;
}

/** One client connection (a WebSocket, or one HTTP request): its turn at the scheduler and what it subscribed to. */
interface Connection {
  client: Client;
  lane: Lane;
  socket?: WebSocket;
  writer?: WebSocketWriter;
  /** client subscription id -> how to leave it */
  subscriptions: Map<string, () => Promise<void>>;
  pendingSubscriptions: number;
  closed: boolean;
  /** When the client last sent a message. */
  lastSeen: number;
  /** The payload of the ping whose pong is awaited: only that pong counts. */
  awaitedPong?: Buffer;
  /** Not read: too much waits to start or to be sent. */
  paused: boolean;
}

/** One upstream subscription fanned out to every client that asked for the same thing. */
interface SharedSubscription {
  clients: Map<string, (result: ResultText) => void>;
  /** Clients waiting for it to open: it is not closed under them. */
  joining: number;
  last?: ResultText;
  ready: Promise<() => Promise<void>>;
}

/** What is left of a batch's answer size limit. */
interface Budget {
  left: number;
  /** An answer did not fit: calls not yet started are refused. */
  full: boolean;
}

const PER_TURN = 64;
/** Bytes handed to a WebSocket and not yet flushed before its writer waits. */
const WRITE_HIGH_WATER = 256 * 1024;

export class RpcProxy {
  readonly metrics = new Registry();
  private readonly cache: AnswerCache;
  private readonly calls = new MergedCalls<ResultText>();
  private readonly shared = new Map<string, SharedSubscription>();
  private readonly policy: MethodPolicy;
  private readonly scheduler: FairScheduler;
  private readonly clients: ClientBook;
  private readonly sockets = new Set<Connection>();
  /** TCP connections refused for their address: whatever they send is not answered. */
  private readonly refusedSockets = new WeakSet<Socket>();
  private nextSubscriptionId = 1;
  private server?: Server;
  private wss?: WebSocketServer;
  private timers: NodeJS.Timeout[] = [];
  private readonly hits = new Counter({ name: 'proxy_cache_hits_total', help: 'Calls answered from the cache', registers: [this.metrics] });
  private readonly misses = new Counter({ name: 'proxy_cache_misses_total', help: 'Cacheable calls sent upstream', registers: [this.metrics] });
  private readonly merged = new Counter({ name: 'proxy_merged_calls_total', help: 'Calls answered by a call already in flight', registers: [this.metrics] });
  private readonly upstreamCalls = new Counter({ name: 'proxy_upstream_calls_total', help: 'Calls sent to upstream nodes', registers: [this.metrics] });
  private readonly timeouts = new Counter({ name: 'proxy_call_timeouts_total', help: 'Calls the node did not answer in time', registers: [this.metrics] });
  private readonly refused = new Counter({
    name: 'proxy_refused_calls_total',
    help: 'Calls (and connections) answered with an error without reaching a node, by reason',
    labelNames: ['reason'],
    registers: [this.metrics],
  });
  private readonly closed = new Counter({
    name: 'proxy_closed_connections_total',
    help: 'WebSockets the proxy closed, by reason',
    labelNames: ['reason'],
    registers: [this.metrics],
  });

  constructor(
    private readonly pool: UpstreamPool,
    private readonly options: ProxyOptions,
    private readonly logger: Logger,
  ) {
    this.cache = new AnswerCache(options.cacheMaxBytes);
    this.policy = new MethodPolicy(options.methods);
    this.scheduler = new FairScheduler({ perLane: options.maxInFlightPerConnection, perGroup: options.maxInFlightPerClient, perTurn: PER_TURN });
    this.clients = new ClientBook(
      () => this.scheduler.group(),
      () => new Slots(options.maxInFlightPerClient),
    );
    const { cache, sockets } = this;
    new Gauge({ name: 'proxy_cache_bytes', help: 'Memory the cache entries take, as counted', registers: [this.metrics], collect() { this.set(cache.bytes); } });
    new Gauge({
      name: 'proxy_unsent_bytes',
      help: 'Answer bytes waiting to go out to WebSocket clients',
      registers: [this.metrics],
      collect() {
        let sum = 0;
        for (const connection of sockets) sum += connection.writer?.pending ?? 0;
        this.set(sum);
      },
    });
    const upstreamGauge = (name: string, help: string, read: (upstream: UpstreamPool['upstreams'][number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['upstream'],
        registers: [this.metrics],
        collect() {
          for (const upstream of pool.upstreams) this.set({ upstream: urlForLogs(upstream.url) }, read(upstream));
        },
      });
    upstreamGauge('proxy_upstream_available', 'Whether the upstream takes calls now (1) or not (0)', (u) => Number(u.available));
    upstreamGauge('proxy_upstream_outstanding', 'Calls in flight at the upstream', (u) => u.outstanding);
    upstreamGauge('proxy_upstream_finalized_height', 'The finalized height the upstream last reported', (u) => u.finalizedNumber);
    upstreamGauge('proxy_upstream_best_height', 'The best height the upstream last reported', (u) => u.bestNumber);
    upstreamGauge('proxy_upstream_subscriptions', 'Subscriptions held at the upstream', (u) => u.subscriptions);
    upstreamGauge('proxy_upstream_connections', 'Connections open to the upstream', (u) => u.connections);
    // An http(s):// upstream (a hosted provider): what its calls cost in requests, and its limits at work.
    const httpTotal = (name: string, help: string, read: (counts: HttpRpcCounts) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['upstream'],
        registers: [this.metrics],
        collect() {
          this.reset();
          for (const upstream of pool.upstreams) {
            const counts = upstream.httpCounts;
            if (counts) this.inc({ upstream: urlForLogs(upstream.url) }, read(counts));
          }
        },
      });
    httpTotal('proxy_upstream_http_requests_total', 'HTTP requests (JSON-RPC batches or single calls) sent to an http(s) upstream', (c) => c.requests);
    httpTotal('proxy_upstream_throttled_total', 'Answers of an http(s) upstream asking to slow down (HTTP 429/503, JSON-RPC busy or too many requests)', (c) => c.throttled);
    httpTotal('proxy_upstream_retries_total', 'Calls sent again to an http(s) upstream after a throttled or failed attempt', (c) => c.retries);
    httpTotal('proxy_upstream_batches_refused_total', 'JSON-RPC batches an http(s) upstream refused (smaller batches or single calls from then on)', (c) => c.batchesRefused);
  }

  async listen(): Promise<string> {
    const { headersTimeoutMs, requestTimeoutMs } = this.options;
    this.server = createServer(
      { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, headersTimeoutMs) },
      (req, res) => this.onHttp(req, res),
    );
    this.server.maxConnections = this.options.maxConnections;
    this.server.on('connection', (socket: Socket) => this.onTcp(socket));
    this.wss = new WebSocketServer({
      server: this.server,
      maxPayload: this.options.maxBodyBytes,
      verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) => this.verifyUpgrade(info.req, done),
    });
    this.wss.on('error', (error) => this.logger.warn({ err: error }, 'websocket server error'));
    this.wss.on('connection', (socket, req) => this.onSocket(socket, req));
    this.every(this.options.pingIntervalMs, () => this.heartbeat());
    this.every(Math.max(100, Math.min(1000, this.options.sendTimeoutMs / 4, this.options.idleTimeoutMs / 4)), () => this.sweep());
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port, this.options.host, () => resolve());
    });
    const address = this.server.address();
    const port = typeof address === 'object' && address ? address.port : this.options.port;
    return `127.0.0.1:${port}`;
  }

  private every(ms: number, work: () => void): void {
    const timer = setInterval(work, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Stops taking connections, lets answers in flight finish, then closes upstreams. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    for (const client of this.wss?.clients ?? []) client.close(1001, 'proxy shutting down');
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    await this.calls.drain();
    await this.pool.close();
  }

  private clientOf(req: IncomingMessage): Client {
    return this.clients.get(clientKey(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.options.trustedProxies));
  }

  /** Without balancers in front, each TCP connection counts against its address as it opens. */
  private onTcp(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    if (this.options.trustedProxies > 0) return; // the peer is a balancer: clients are counted per request and WebSocket
    const client = this.clients.get(clientKey(socket.remoteAddress, undefined, 0));
    if (client.connections >= this.options.maxConnectionsPerClient) {
      this.refused.inc({ reason: 'connections' });
      this.refusedSockets.add(socket);
      const body = JSON.stringify(failure(null, RpcCode.serverIsBusy, this.tooManyConnections()));
      socket.end(`HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    client.connections += 1;
    socket.once('close', () => (client.connections -= 1));
  }

  private tooManyConnections(): string {
    return `Too many connections from this address (at most ${this.options.maxConnectionsPerClient})`;
  }

  private verifyUpgrade(req: IncomingMessage, done: (ok: boolean, code?: number, message?: string) => void): void {
    if (this.refusedSockets.has(req.socket)) return done(false, 429, 'Too Many Requests');
    if (this.options.trustedProxies > 0 && this.clientOf(req).connections >= this.options.maxConnectionsPerClient) {
      this.refused.inc({ reason: 'connections' });
      return done(false, 429, 'Too Many Requests');
    }
    done(true);
  }

  private onHttp(req: IncomingMessage, res: ServerResponse): void {
    res.on('error', () => undefined);
    if (this.refusedSockets.has(req.socket)) return; // already answered 429 and closing
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
      // Up by the nodes' own probes: one client's slow calls do not take the proxy out of a balancer.
      const upstreams = this.pool.upstreams.map((u) => ({ url: urlForLogs(u.url), available: u.available, up: u.up, best: u.bestNumber, finalized: u.finalizedNumber, outstanding: u.outstanding }));
      const ok = this.pool.up;
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
    const client = this.clientOf(req);
    if (client.requests >= this.options.maxQueuedPerConnection) {
      this.refused.inc({ reason: 'requests' });
      writeJson(res, 429, failure(null, RpcCode.serverIsBusy, `Too many requests in progress from this address (at most ${this.options.maxQueuedPerConnection})`));
      return;
    }
    if (this.options.trustedProxies > 0 && client.requests >= this.options.maxConnectionsPerClient) {
      // Behind a balancer, requests in progress stand for connections.
      this.refused.inc({ reason: 'connections' });
      writeJson(res, 429, failure(null, RpcCode.serverIsBusy, this.tooManyConnections()));
      return;
    }
    client.requests += 1;
    const connection = newConnection(client, this.scheduler.lane(client.group));
    // Done or gone (the client left): its calls stop being waited on.
    res.once('close', () => {
      client.requests -= 1;
      closeConnection(connection);
    });
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
    const answer = await this.handleText(Buffer.concat(chunks).toString('utf8'), connection);
    if (connection.closed || res.destroyed) return;
    if (answer === undefined) res.writeHead(204).end();
    else await writeHttpAnswer(res, 200, answer, this.options.sendTimeoutMs);
  }

  private onSocket(socket: WebSocket, req: IncomingMessage): void {
    const client = this.clientOf(req);
    if (this.options.trustedProxies > 0) client.connections += 1;
    const connection = newConnection(client, this.scheduler.lane(client.group), socket);
    connection.writer = new WebSocketWriter(socket, { highWaterBytes: WRITE_HIGH_WATER, tcp: req.socket, onChange: () => this.updateFlow(connection) });
    this.sockets.add(connection);
    // Protocol violations and oversized frames: ws closes the socket; the process goes on.
    socket.on('error', () => socket.terminate());
    socket.on('message', (data: Buffer) => {
      connection.lastSeen = Date.now();
      this.handleText(data.toString(), connection)
        .catch((error: unknown) => {
          this.logger.warn({ err: error }, 'websocket message failed');
          return Outgoing.of(JSON.stringify(failure(null, RpcCode.internalError, 'Internal error')));
        })
        .then((answer) => {
          if (answer !== undefined) connection.writer!.send(answer);
          this.updateFlow(connection);
        })
        .catch(() => undefined);
      this.updateFlow(connection);
    });
    socket.on('pong', (data: Buffer) => {
      if (connection.awaitedPong?.equals(data)) connection.awaitedPong = undefined;
    });
    socket.on('close', () => {
      this.sockets.delete(connection);
      if (this.options.trustedProxies > 0) client.connections -= 1;
      this.release(connection);
    });
  }

  /**
   * Holds a WebSocket whose client does not read its answers: while more than the
   * bound waits to go out, none of its calls start and it is not read; it is also
   * not read while too many of its calls wait to start.
   */
  private updateFlow(connection: Connection): void {
    const { socket, writer, lane } = connection;
    if (!socket || !writer || connection.closed) return;
    const over = writer.pending > this.options.maxUnsentBytesPerConnection;
    lane.held = over;
    if (!connection.paused && (over || lane.queued >= this.options.maxQueuedPerConnection)) {
      connection.paused = true;
      socket.pause();
    } else if (connection.paused && !over && lane.queued < this.options.maxQueuedPerConnection / 2) {
      connection.paused = false;
      socket.resume();
    }
  }

  /** A ping to every WebSocket; one that has not answered the last ping with its payload is gone. */
  private heartbeat(): void {
    for (const connection of this.sockets) {
      const socket = connection.socket!;
      // Not read for now (its calls or answers back up), so its pong cannot be read either:
      // the send timeout watches it instead.
      if (connection.paused) continue;
      if (connection.awaitedPong) {
        this.closed.inc({ reason: 'ping' });
        socket.terminate();
        continue;
      }
      connection.awaitedPong = randomBytes(8);
      socket.ping(connection.awaitedPong);
    }
  }

  /** Closes WebSockets that do not take their answers, or that idle; forgets clients that hold nothing. */
  private sweep(): void {
    const now = Date.now();
    for (const connection of this.sockets) {
      const socket = connection.socket!;
      if (connection.writer!.stalledFor(now) > this.options.sendTimeoutMs) {
        this.closed.inc({ reason: 'send_timeout' });
        socket.terminate();
      } else if (
        now - connection.lastSeen > this.options.idleTimeoutMs &&
        connection.subscriptions.size === 0 &&
        connection.pendingSubscriptions === 0 &&
        connection.lane.inFlight === 0 &&
        connection.lane.queued === 0 &&
        connection.writer!.pending === 0
      ) {
        this.closed.inc({ reason: 'idle' });
        socket.close(1000, 'idle');
      }
    }
    this.clients.prune();
  }

  private release(connection: Connection): void {
    closeConnection(connection);
    for (const leave of connection.subscriptions.values()) leave().catch(() => undefined);
    connection.subscriptions.clear();
  }

  /** One JSON text in, one JSON text out (or nothing, when only notifications came). */
  private async handleText(text: string, connection: Connection): Promise<Outgoing | undefined> {
    const parsed = parseMessage(text);
    if (!parsed.ok) return this.refuse('malformed', parsed.response);
    if (!Array.isArray(parsed.value)) return this.handleOne(parsed.value, connection);
    const batch = parsed.value;
    if (batch.length === 0) return this.refuse('malformed', failure(null, RpcCode.invalidRequest, 'Invalid Request: empty batch'));
    if (batch.length > this.options.maxBatchSize) {
      return this.refuse('batch', failure(null, RpcCode.batchTooLarge, `Batch too large: ${batch.length} calls, at most ${this.options.maxBatchSize}`));
    }
    const budget: Budget = { left: this.options.maxBatchAnswerBytes, full: false };
    const answers = await Promise.all(batch.map((request) => this.handleOne(request, connection, budget)));
    const present = answers.filter((answer): answer is Outgoing => answer !== undefined);
    if (present.length === 0) return undefined;
    const joined = new Outgoing().push('[', 1);
    present.forEach((answer, i) => {
      if (i > 0) joined.push(',', 1);
      joined.append(answer);
    });
    return joined.push(']', 1);
  }

  private refuse(reason: string, response: RpcResponse): Outgoing {
    this.refused.inc({ reason });
    return Outgoing.of(JSON.stringify(response));
  }

  private async handleOne(value: unknown, connection: Connection, budget?: Budget): Promise<Outgoing | undefined> {
    const read = readCall(value);
    if ('response' in read) {
      this.refused.inc({ reason: 'malformed' });
      return Outgoing.of(JSON.stringify(read.response));
    }
    const { call } = read;
    let answer: Outgoing;
    try {
      const result = await this.scheduler.submit(connection.lane, (signal) => {
        if (budget?.full) throw this.batchTooBig();
        return this.run(call, connection, signal);
      });
      if (result.bytes > this.options.maxAnswerBytes) {
        this.refused.inc({ reason: 'answer_size' });
        throw new RpcError(RpcCode.responseTooLarge, `Response too large: ${result.bytes} bytes, at most ${this.options.maxAnswerBytes}`);
      }
      if (budget) {
        if (result.bytes > budget.left) {
          budget.full = true;
          throw this.batchTooBig();
        }
        budget.left -= result.bytes;
      }
      answer = successAnswer(call.id, result);
    } catch (error) {
      if (error instanceof LaneClosedError || error instanceof AbandonedCallError) return undefined;
      answer = Outgoing.of(JSON.stringify(this.errorResponse(call, error)));
    }
    return call.notification ? undefined : answer;
  }

  private batchTooBig(): RpcError {
    this.refused.inc({ reason: 'answer_size' });
    return new RpcError(RpcCode.responseTooLarge, `Response too large: the batch's answers would exceed ${this.options.maxBatchAnswerBytes} bytes`);
  }

  private errorResponse(call: RpcCall, error: unknown): RpcResponse {
    if (error instanceof RpcError) return failure(call.id, error.code, error.message, error.data);
    if (error instanceof NodeTimeoutError) {
      this.timeouts.inc();
      return failure(call.id, RpcCode.upstreamTimeout, `upstream timeout: ${error.message}`);
    }
    if (error instanceof NoUpstreamError) return failure(call.id, RpcCode.noUpstream, `no upstream: ${error.message}`);
    this.logger.warn({ err: error, method: call.method }, 'upstream call failed');
    return failure(call.id, RpcCode.noUpstream, `no upstream: ${(error as Error)?.message ?? String(error)}`);
  }

  private async run(call: RpcCall, connection: Connection, signal: AbortSignal): Promise<ResultText> {
    const { method, params } = call;
    if (!this.policy.permits(method)) {
      this.refused.inc({ reason: 'method' });
      throw new RpcError(RpcCode.methodNotFound, `Method not found: ${method.slice(0, 64)}`);
    }
    const problem = this.policy.paramsProblem(method, params);
    if (problem) {
      this.refused.inc({ reason: 'params' });
      throw new RpcError(RpcCode.invalidParams, `Invalid params: ${problem}`);
    }
    const kind = this.policy.subscription(method);
    if (kind || this.policy.isUnsubscribe(method)) {
      if (!connection.socket) throw new RpcError(RpcCode.methodNotFound, 'Subscriptions need a WebSocket connection');
      if (kind) return resultText(await this.subscribe(method, params, kind, connection));
      const leave = connection.subscriptions.get(String(params[0]));
      if (!leave) return resultText(false);
      connection.subscriptions.delete(String(params[0]));
      await leave();
      return resultText(true);
    }
    return this.answer(method, params, signal, connection.client.atNodes);
  }

  /** The result of a read: from the cache, from a call in flight already, or from a node (counted against `caller`). */
  private async answer(method: string, params: unknown[], signal: AbortSignal, caller: Slots): Promise<ResultText> {
    const decision = decide(method, params);
    let cacheKey: string | undefined;
    let minFinalized: number | undefined;
    if (decision.kind === 'immutable') cacheKey = decision.key;
    else if (decision.kind === 'finalizedNumber') {
      // A hash kept was finalized when it was kept: served whatever the upstreams' state now.
      const kept = this.cache.get(decision.key);
      if (kept) {
        this.hits.inc();
        return kept;
      }
      if (this.pool.hasFinalized(decision.number)) {
        // The hash of height n may be kept only as told by a node that has itself finalized n.
        cacheKey = decision.key;
        minFinalized = decision.number;
      }
    }
    if (cacheKey) {
      const cached = this.cache.get(cacheKey);
      if (cached !== undefined) {
        this.hits.inc();
        return cached;
      }
      this.misses.inc();
    }
    const mergeKey = cacheKey ?? (decision.kind === 'passThrough' ? decision.mergeKey : decision.key);
    const send = async (callSignal: AbortSignal): Promise<ResultText> => {
      this.upstreamCalls.inc();
      // Only what may be kept is judged: anything else is the node's answer to pass on.
      const verdictOf = cacheKey ? (result: unknown) => judge(method, params, result) : () => 'serve' as const;
      const { result, verdict } = await this.pool.call(method, params, { retry: mergeKey !== undefined, minFinalized, judge: verdictOf, signal: callSignal, caller });
      // The node's list would name methods this proxy refuses.
      const shown = method === 'rpc_methods' && isMethodList(result) ? { ...result, methods: result.methods.filter((name) => this.policy.permits(name)) } : result;
      const text = resultText(shown);
      if (cacheKey && verdict === 'cache' && text.bytes <= this.options.maxAnswerBytes && !this.cache.has(cacheKey)) this.cache.set(cacheKey, text);
      return text;
    };
    if (!mergeKey) return send(signal);
    const { promise, joined } = this.calls.run(mergeKey, send, signal);
    if (joined) this.merged.inc();
    return promise;
  }

  private async subscribe(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<string> {
    if (connection.subscriptions.size + connection.pendingSubscriptions >= this.options.maxSubscriptionsPerConnection) {
      this.refused.inc({ reason: 'subscriptions' });
      throw new RpcError(RpcCode.tooManySubscriptions, `Too many subscriptions on this connection (at most ${this.options.maxSubscriptionsPerConnection})`);
    }
    const { client } = connection;
    if (client.subscriptions >= this.options.maxSubscriptionsPerClient) {
      this.refused.inc({ reason: 'subscriptions' });
      throw new RpcError(RpcCode.tooManySubscriptions, `Too many subscriptions from this address (at most ${this.options.maxSubscriptionsPerClient})`);
    }
    client.subscriptions += 1;
    let opened: { id: string; leave: () => Promise<void> };
    try {
      opened = kind.shared ? await this.joinShared(method, params, kind, connection) : await this.openPrivate(method, params, kind, connection);
    } catch (error) {
      client.subscriptions -= 1;
      throw error;
    }
    let left = false;
    connection.subscriptions.set(opened.id, async () => {
      if (left) return;
      left = true;
      client.subscriptions -= 1;
      await opened.leave();
    });
    return opened.id;
  }

  private async joinShared(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<{ id: string; leave: () => Promise<void> }> {
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
    // A late joiner gets the latest value at once, as a fresh upstream subscription would send it.
    if (shared.last !== undefined) {
      const last = shared.last;
      setImmediate(() => send(last));
    }
    return { id: subscriptionId, leave };
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
  private async openPrivate(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<{ id: string; leave: () => Promise<void> }> {
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
    return { id: subscriptionId, leave: close };
  }

  private async openUpstream(method: string, params: unknown[], kind: SubscriptionKind, onResult: (result: ResultText) => void): Promise<() => Promise<void>> {
    if (!this.pool.supportsSubscriptions) throw new RpcError(RpcCode.methodNotFound, 'Subscriptions are not available: the proxy reaches its nodes over HTTP(S) only');
    const upstream = this.pool.subscriptionUpstream();
    if (!upstream) throw new NoUpstreamError('no node is available, or none has room for another subscription');
    this.upstreamCalls.inc();
    try {
      return await upstream.subscribe(kind.notification, method, kind.unsubscribe, params, (value) => onResult(resultText(value)));
    } catch (error) {
      throw error instanceof RpcError ? error : new NoUpstreamError((error as Error)?.message ?? String(error));
    }
  }

  private newSubscriptionId(): string {
    return `0x${(this.nextSubscriptionId++).toString(16).padStart(16, '0')}`;
  }
}

function newConnection(client: Client, lane: Lane, socket?: WebSocket): Connection {
  return { client, lane, socket, subscriptions: new Map(), pendingSubscriptions: 0, closed: false, lastSeen: Date.now(), paused: false };
}

function closeConnection(connection: Connection): void {
  connection.closed = true;
  connection.lane.close();
}

/** `{"jsonrpc":"2.0","id":…,"result":…}` with the result's text spliced in as it is (a cached one is never parsed or copied). */
function successAnswer(id: RpcId, result: ResultText): Outgoing {
  return new Outgoing().push(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`).push(result.text, result.bytes).push('}', 1);
}

function notifier(connection: Connection, notification: string, subscriptionId: string): (result: ResultText) => void {
  const head = `{"jsonrpc":"2.0","method":${JSON.stringify(notification)},"params":{"subscription":${JSON.stringify(subscriptionId)},"result":`;
  return (result) => connection.writer?.send(new Outgoing().push(head).push(result.text, result.bytes).push('}}', 2));
}

function isMethodList(value: unknown): value is { methods: string[] } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { methods?: unknown }).methods);
}

function writeJson(res: ServerResponse, status: number, body: unknown, close = false): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...(close ? { Connection: 'close' } : {}) }).end(JSON.stringify(body));
}
