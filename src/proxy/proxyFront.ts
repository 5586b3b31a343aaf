// The proxy's one port: HTTP POST and WebSocket, /health and /metrics as plain
// GETs. Each connection is admitted for its client address first (ClientBook):
// without balancers in front each TCP connection counts as it opens, and one over
// the cap is answered 429 and closed before anything it sends is read; behind
// balancers each WebSocket and HTTP request counts instead. Every connection and
// every request has its own catch: no input ends the process.
import { createServer, IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

import { closeServer, trackConnections } from '../http/listen';
import { urlForLogs, type Logger } from '../logger';
import { RpcCode } from '../rpc/rpcCodes';
import { clientKey } from './clientAddress';
import { isRefusal, type Client, type ClientBook } from './clientBook';
import { closeConnection, openConnection, type Connection } from './connection';
import type { FairScheduler } from './fairScheduler';
import { failure } from './jsonRpc';
import { CHUNK_CHARS, Outgoing, WebSocketWriter, writeHttpAnswer } from './outgoing';
import type { OpenSockets } from './openSockets';
import type { ProxyMetrics } from './proxyMetrics';
import { RateLimitedAnswer } from './rateGate';
import type { UpstreamPool } from './upstreamPool';

export interface FrontOptions {
  host: string;
  port: number;
  maxConnections: number;
  maxBodyBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  sendTimeoutMs: number;
  trustedProxies: number;
}

/** What the front hands on: messages to answer, and connections that ended. */
export interface FrontHandlers {
  /** One JSON text in, one JSON text out (or nothing, when only notifications came); at once when it is at hand. */
  message(text: string, connection: Connection): Outgoing | undefined | Promise<Outgoing | undefined>;
  /** A WebSocket closed: what it subscribed to is to be left. */
  gone(connection: Connection): void;
}

export interface FrontParts {
  pool: UpstreamPool;
  book: ClientBook;
  scheduler: FairScheduler;
  sockets: OpenSockets;
  metrics: ProxyMetrics;
  logger: Logger;
}

/** Bytes handed to a WebSocket and not yet flushed before its writer waits. */
const WRITE_HIGH_WATER = 256 * 1024;

type UpgradeDone = (ok: boolean, code?: number, message?: string) => void;

/**
 * One JSON-RPC POST in progress: its body as read so far and what to give back when it
 * ends. The request's listeners are the functions below, shared by every request, that
 * find this through their request: no closures are made per request.
 */
class PostExchange {
  first?: Buffer;
  rest?: Buffer[];
  /** Bytes of body read; -1 once refused as too large. */
  size = 0;

  constructor(
    readonly front: ProxyFront,
    readonly req: ProxyRequest,
    readonly res: ServerResponse,
    readonly connection: Connection,
    readonly release: () => void,
  ) {}
}

/** Node's request with room for the POST it carries. */
class ProxyRequest extends IncomingMessage {
  exchange?: PostExchange;
}

function ignore(): void {}

function onBodyData(this: ProxyRequest, chunk: Buffer): void {
  this.exchange!.front.bodyData(this.exchange!, chunk);
}

function onBodyEnd(this: ProxyRequest): void {
  this.exchange!.front.bodyEnd(this.exchange!);
}

/**
 * Requests of one HTTP connection in progress at once; more are refused with 429 until one is
 * done. Node starts every request a client pipelines, and an answer that waits on a promise
 * holds no bytes Node would count against the socket: without this bound one connection that
 * sends batches and reads nothing holds as many as its address may (about half a gigabyte of
 * parsed calls and answers), not a handful. A refusal is a small answer, which Node does count:
 * it stops reading a connection whose answers pile up.
 */
export const PIPELINED_REQUESTS = 8;

/** Requests in progress on each HTTP connection. */
const inProgress = new WeakMap<Socket, number>();

/** One more request on `socket`, or false when it already has as many in progress as it may. */
function startedOn(socket: Socket): boolean {
  const count = inProgress.get(socket) ?? 0;
  if (count >= PIPELINED_REQUESTS) return false;
  inProgress.set(socket, count + 1);
  return true;
}

function doneOn(socket: Socket | null): void {
  if (socket) inProgress.set(socket, (inProgress.get(socket) ?? 1) - 1);
}

/** Done or gone (the client left): its calls stop being waited on. */
function onPostClosed(this: ServerResponse): void {
  const exchange = (this.req as ProxyRequest).exchange!;
  exchange.release();
  closeConnection(exchange.connection);
  exchange.front.forget(this);
  doneOn(exchange.req.socket);
}

/** The Content-Length a request declares, read from its raw headers: the parsed headers are made only when asked for. */
function declaredLength(req: IncomingMessage): number {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === 14 && name.toLowerCase() === 'content-length') return Number(raw[i + 1]);
  }
  return Number.NaN;
}

export class ProxyFront {
  private server?: Server;
  private wss?: WebSocketServer;
  /** TCP connections refused for their address: whatever they send is not answered. */
  private readonly refusedSockets = new WeakSet<Socket>();
  /** Small HTTP answers handed to their socket and not yet flushed, since when: in insertion order, the oldest first. */
  private readonly unfinished = new Map<ServerResponse, number>();
  /** Without balancers in front, each TCP connection's client, found when it was admitted: its requests need not look it up. */
  private readonly socketClients = new WeakMap<Socket, Client>();

  constructor(
    private readonly options: FrontOptions,
    private readonly parts: FrontParts,
    private readonly handlers: FrontHandlers,
  ) {}

  /** Starts listening; the address clients reach it at. */
  async listen(): Promise<string> {
    const { headersTimeoutMs, requestTimeoutMs } = this.options;
    this.server = createServer<typeof ProxyRequest>(
      {
        IncomingMessage: ProxyRequest,
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
      },
      (req, res) => this.onHttp(req, res),
    );
    this.server.maxConnections = this.options.maxConnections;
    trackConnections(this.server);
    this.server.on('connection', (socket: Socket) => this.onTcp(socket));
    this.wss = new WebSocketServer({
      server: this.server,
      maxPayload: this.options.maxBodyBytes,
      verifyClient: (info: { req: IncomingMessage }, done: UpgradeDone) => this.verifyUpgrade(info.req, done),
    });
    this.wss.on('error', (error) => this.parts.logger.warn({ err: error }, 'websocket server error'));
    this.wss.on('connection', (socket, req) => this.onSocket(socket, req));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port, this.options.host, () => resolve());
    });
    const address = this.server.address();
    const port = typeof address === 'object' && address ? address.port : this.options.port;
    return `127.0.0.1:${port}`;
  }

  /** Cuts off HTTP clients that have not taken a small answer, all of it handed to their socket, within the send timeout. */
  sweep(now = Date.now()): void {
    for (const [res, since] of this.unfinished) {
      if (now - since <= this.options.sendTimeoutMs) break; // the rest came later
      this.unfinished.delete(res);
      if (res.writableFinished) continue; // taken after all
      // The connection's own socket: an answer queued behind another (pipelined) has none yet, and
      // destroying it alone would wait for one that never comes when the answer ahead (a 429, say)
      // is the one the client does not take. Counted once a connection.
      const socket = res.req.socket;
      if (socket && !socket.destroyed) {
        this.parts.metrics.closed('send_timeout');
        socket.destroy();
      }
      res.destroy();
    }
  }

  /** Closes every WebSocket and stops taking connections; resolves once the server is closed. */
  async close(): Promise<void> {
    for (const client of this.wss?.clients ?? []) client.close(1001, 'proxy shutting down');
    if (this.server) await closeServer(this.server);
  }

  private clientOf(req: IncomingMessage): Client {
    if (this.options.trustedProxies === 0) {
      // Held by its connection's admission until the socket closes, so not pruned from the book meanwhile.
      const known = this.socketClients.get(req.socket);
      if (known) return known;
    }
    return this.parts.book.client(clientKey(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.options.trustedProxies));
  }

  private onTcp(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    if (this.options.trustedProxies > 0) return; // the peer is a balancer: clients are counted per request and WebSocket
    const { book, metrics } = this.parts;
    const release = book.admit(book.client(clientKey(socket.remoteAddress, undefined, 0)), 'connection');
    if (isRefusal(release)) {
      metrics.refused(release.reason);
      this.refusedSockets.add(socket);
      const body = JSON.stringify(failure(null, RpcCode.serverIsBusy, release.message));
      // Closed as soon as the refusal is out. Node has already set its HTTP parser on the socket:
      // left open, everything the client went on sending would be parsed and held (each request
      // queued behind one never answered) for as long as it kept the connection.
      socket.end(`HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`, () =>
        socket.destroy(),
      );
      return;
    }
    socket.once('close', release);
    this.socketClients.set(socket, book.client(clientKey(socket.remoteAddress, undefined, 0)));
  }

  private verifyUpgrade(req: IncomingMessage, done: UpgradeDone): void {
    if (this.refusedSockets.has(req.socket)) {
      done(false, 429, 'Too Many Requests');
      return;
    }
    if (this.options.trustedProxies > 0) {
      // The WebSocket holds its TCP connection (from the balancer) to its end: counted until that closes.
      const release = this.parts.book.admit(this.clientOf(req), 'connection');
      if (isRefusal(release)) {
        this.parts.metrics.refused(release.reason);
        done(false, 429, 'Too Many Requests');
        return;
      }
      req.socket.once('close', release);
      if (req.socket.destroyed) release();
    }
    done(true);
  }

  private onHttp(req: ProxyRequest, res: ServerResponse): void {
    res.on('error', ignore);
    if (this.refusedSockets.has(req.socket)) return; // already answered 429 and closing
    if (req.method === 'POST') this.answerPost(req, res);
    else this.answerGet(req, res).catch((error: unknown) => this.failed(req, res, error));
  }

  /** A client that left mid-body, or anything unforeseen: this request ends, nothing else. */
  private failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    if (!req.destroyed && !res.headersSent) {
      this.parts.logger.warn({ err: error }, 'http request failed');
      writeJson(res, 500, failure(null, RpcCode.internalError, 'Internal error'));
    } else res.destroy();
  }

  private async answerGet(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pool, metrics } = this.parts;
    if (req.method === 'GET' && req.url === '/health') {
      // Up by the nodes' own probes: one client's slow calls do not take the proxy out of a balancer.
      const upstreams = pool.upstreams.map((u) => ({
        url: urlForLogs(u.url),
        available: u.available,
        up: u.up,
        best: u.bestNumber,
        finalized: u.finalizedNumber,
        outstanding: u.outstanding,
      }));
      const ok = pool.up;
      writeJson(res, ok ? 200 : 503, { status: ok ? 'ok' : 'no upstream', upstreams });
      return;
    }
    if (req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(await metrics.registry.metrics());
      return;
    }
    writeJson(res, 405, failure(null, RpcCode.invalidRequest, 'POST a JSON-RPC request'));
  }

  /** A JSON-RPC POST: admitted for its address, its body read within the size limit, then answered. */
  private answerPost(req: ProxyRequest, res: ServerResponse): void {
    const { metrics, book, scheduler } = this.parts;
    const client = this.clientOf(req);
    const release = book.admit(client, 'request');
    if (isRefusal(release)) {
      metrics.refused(release.reason);
      writeJson(res, 429, failure(null, RpcCode.serverIsBusy, release.message));
      this.watchRefusal(res);
      return;
    }
    if (!startedOn(req.socket)) {
      release();
      metrics.refused('pipelined');
      writeJson(res, 429, failure(null, RpcCode.serverIsBusy, `Too many requests in progress on this connection (at most ${PIPELINED_REQUESTS})`));
      this.watchRefusal(res);
      return;
    }
    req.exchange = new PostExchange(this, req, res, openConnection(client, scheduler.lane(client.group)), release);
    res.on('close', onPostClosed);
    req.on('error', ignore); // a client gone mid-body: the response closes, and that is all
    if (declaredLength(req) > this.options.maxBodyBytes) {
      writeJson(res, 413, failure(null, RpcCode.invalidRequest, 'request too large'), true);
      return;
    }
    // Read by events rather than an async iterator: a small body is one chunk, taken as it is.
    req.on('data', onBodyData);
    req.on('end', onBodyEnd);
  }

  /** A chunk of a POST's body. */
  bodyData(exchange: PostExchange, chunk: Buffer): void {
    if (exchange.size < 0) return;
    exchange.size += chunk.length;
    if (exchange.size > this.options.maxBodyBytes) {
      exchange.size = -1;
      writeJson(exchange.res, 413, failure(null, RpcCode.invalidRequest, 'request too large'), true);
      return;
    }
    if (exchange.first === undefined) exchange.first = chunk;
    else if (exchange.rest === undefined) exchange.rest = [exchange.first, chunk];
    else exchange.rest.push(chunk);
  }

  /** A POST's body is all in: its answer. */
  bodyEnd(exchange: PostExchange): void {
    if (exchange.size < 0) return;
    const { req, res, connection, rest, first } = exchange;
    const body = rest ? Buffer.concat(rest) : first;
    try {
      const answer = this.handlers.message(body === undefined ? '' : body.toString('utf8'), connection);
      if (answer instanceof Promise)
        answer.then((settled) => this.sendHttp(req, res, connection, settled)).catch((error: unknown) => this.failed(req, res, error));
      else this.sendHttp(req, res, connection, answer);
    } catch (error) {
      this.failed(req, res, error);
    }
  }

  /**
   * A small answer written whole at once (a refusal too): watched until its client takes it, so
   * that a client that takes none is found by sweep() whichever answer it stopped at.
   */
  private watch(res: ServerResponse): void {
    if (!res.writableFinished) this.unfinished.set(res, Date.now());
  }

  /** A refusal has no exchange, so no close listener of its own: it forgets itself once taken. */
  private watchRefusal(res: ServerResponse): void {
    if (res.writableFinished) return;
    this.watch(res);
    res.once('close', () => this.forget(res));
  }

  /** A POST's response closed: no longer watched for its client taking it. */
  forget(res: ServerResponse): void {
    this.unfinished.delete(res);
  }

  /** An answer of one chunk is written whole at once (no Promise); a client that does not take it is found by sweep(), not by a timer of its own. */
  private sendHttp(req: IncomingMessage, res: ServerResponse, connection: Connection, answer: Outgoing | undefined): void {
    if (connection.closed || res.destroyed) return;
    if (answer === undefined) {
      res.writeHead(204).end();
      this.watch(res);
    } else if (answer instanceof RateLimitedAnswer) {
      const headers = { 'Retry-After': String(answer.retryAfterSeconds) };
      writeHttpAnswer(res, 429, answer, this.options.sendTimeoutMs, headers).catch((error: unknown) => this.failed(req, res, error));
    } else if (answer.bytes > CHUNK_CHARS)
      writeHttpAnswer(res, 200, answer, this.options.sendTimeoutMs).catch((error: unknown) => this.failed(req, res, error));
    else {
      // Headers as a flat list: Node writes them as they are, without walking an object's keys.
      res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', String(answer.bytes)]);
      res.end(answer.parts.length === 1 ? answer.parts[0] : answer.parts.join(''));
      this.watch(res);
    }
  }

  private onSocket(socket: WebSocket, req: IncomingMessage): void {
    const { sockets, scheduler, logger } = this.parts;
    const client = this.clientOf(req);
    const connection = openConnection(client, scheduler.lane(client.group), socket);
    connection.writer = new WebSocketWriter(socket, { highWaterBytes: WRITE_HIGH_WATER, tcp: req.socket, onChange: () => sockets.updateFlow(connection) });
    sockets.add(connection);
    // Protocol violations and oversized frames: ws closes the socket; the process goes on.
    socket.on('error', () => socket.terminate());
    const deliver = (answer: Outgoing | undefined) => {
      if (answer !== undefined) connection.writer!.send(answer);
      sockets.updateFlow(connection);
    };
    const failed = (error: unknown) => {
      logger.warn({ err: error }, 'websocket message failed');
      return Outgoing.of(JSON.stringify(failure(null, RpcCode.internalError, 'Internal error')));
    };
    socket.on('message', (data: Buffer) => {
      connection.lastSeen = Date.now();
      let answer: Outgoing | undefined | Promise<Outgoing | undefined>;
      try {
        answer = this.handlers.message(data.toString(), connection);
      } catch (error) {
        answer = failed(error);
      }
      if (answer instanceof Promise)
        answer
          .catch(failed)
          .then(deliver)
          .catch(() => undefined);
      else deliver(answer);
      sockets.updateFlow(connection);
    });
    socket.on('pong', (data: Buffer) => {
      if (connection.awaitedPong?.equals(data)) connection.awaitedPong = undefined;
    });
    socket.on('close', () => {
      sockets.delete(connection);
      closeConnection(connection);
      this.handlers.gone(connection);
    });
  }
}

function writeJson(res: ServerResponse, status: number, body: unknown, close = false): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...(close ? { Connection: 'close' } : {}) }).end(JSON.stringify(body));
}
