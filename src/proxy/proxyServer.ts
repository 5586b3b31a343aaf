// The caching JSON-RPC proxy: WebSocket and HTTP POST on one port, single
// calls and batches, answers that cannot change served from a byte-bounded
// cache, identical calls in flight merged, subscriptions shared between
// clients. /health and /metrics answer plain GETs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, Registry } from 'prom-client';
import { WebSocketServer, type WebSocket } from 'ws';

import type { Logger } from '../logger';
import { decide, isCacheableResult } from './cachePolicy';
import { NoUpstreamError, UpstreamRpcError, type UpstreamPool } from './upstreams';

interface RpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type RpcResponse = { jsonrpc: '2.0'; id: unknown; result: unknown } | { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string; data?: unknown } };

const SUBSCRIPTIONS: Record<string, { notification: string; unsubscribe: string }> = {
  chain_subscribeNewHeads: { notification: 'chain_newHead', unsubscribe: 'chain_unsubscribeNewHeads' },
  chain_subscribeNewHead: { notification: 'chain_newHead', unsubscribe: 'chain_unsubscribeNewHead' },
  chain_subscribeFinalizedHeads: { notification: 'chain_finalizedHead', unsubscribe: 'chain_unsubscribeFinalizedHeads' },
  chain_subscribeFinalisedHeads: { notification: 'chain_finalizedHead', unsubscribe: 'chain_unsubscribeFinalisedHeads' },
  chain_subscribeAllHeads: { notification: 'chain_allHead', unsubscribe: 'chain_unsubscribeAllHeads' },
  state_subscribeRuntimeVersion: { notification: 'state_runtimeVersion', unsubscribe: 'state_unsubscribeRuntimeVersion' },
  state_subscribeStorage: { notification: 'state_storage', unsubscribe: 'state_unsubscribeStorage' },
};
const UNSUBSCRIBE = new Set(Object.values(SUBSCRIPTIONS).map((s) => s.unsubscribe));

export interface ProxyOptions {
  host: string;
  port: number;
  cacheMaxBytes: number;
  maxBodyBytes: number;
}

/** One upstream subscription fanned out to every client that asked for the same thing. */
interface SharedSubscription {
  clients: Map<string, (result: unknown) => void>;
  last?: unknown;
  ready: Promise<() => Promise<void>>;
}

export class RpcProxy {
  readonly metrics = new Registry();
  private readonly cache: LRUCache<string, string>;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly shared = new Map<string, SharedSubscription>();
  private nextSubscriptionId = 1;
  private server?: Server;
  private wss?: WebSocketServer;
  private readonly hits = new Counter({ name: 'proxy_cache_hits_total', help: 'Calls answered from the cache', registers: [this.metrics] });
  private readonly misses = new Counter({ name: 'proxy_cache_misses_total', help: 'Cacheable calls sent upstream', registers: [this.metrics] });
  private readonly merged = new Counter({ name: 'proxy_merged_calls_total', help: 'Calls answered by a call already in flight', registers: [this.metrics] });
  private readonly upstreamCalls = new Counter({ name: 'proxy_upstream_calls_total', help: 'Calls sent to upstream nodes', registers: [this.metrics] });

  constructor(
    private readonly pool: UpstreamPool,
    private readonly options: ProxyOptions,
    private readonly logger: Logger,
  ) {
    this.cache = new LRUCache({ maxSize: Math.max(1, options.cacheMaxBytes), sizeCalculation: (value, key) => value.length + key.length });
    const cache = this.cache;
    new Gauge({ name: 'proxy_cache_bytes', help: 'Bytes held by the cache', registers: [this.metrics], collect() { this.set(cache.calculatedSize ?? 0); } });
    for (const upstream of pool.upstreams) {
      new Gauge({
        name: `proxy_upstream_outstanding_${pool.upstreams.indexOf(upstream)}`,
        help: `Calls in flight at ${upstream.url}`,
        registers: [this.metrics],
        collect() {
          this.set(upstream.outstanding);
        },
      });
    }
  }

  get stats() {
    return { cacheBytes: this.cache.calculatedSize ?? 0, upstreamCalls: this.pool.upstreams.reduce((sum, u) => sum + u.calls, 0) };
  }

  async listen(): Promise<string> {
    this.server = createServer((req, res) => void this.onHttp(req, res));
    this.wss = new WebSocketServer({ server: this.server, maxPayload: this.options.maxBodyBytes });
    this.wss.on('connection', (socket) => this.onSocket(socket));
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
    for (const client of this.wss?.clients ?? []) client.close(1001, 'proxy shutting down');
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    await Promise.all([...this.inFlight.values()].map((call) => call.catch(() => undefined)));
    await this.pool.close();
  }

  private async onHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/health') {
      const upstreams = this.pool.upstreams.map((u) => ({ url: u.url, available: u.available, best: u.bestNumber, finalized: u.finalizedNumber, outstanding: u.outstanding }));
      const ok = upstreams.some((u) => u.available);
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'no upstream', upstreams }));
      return;
    }
    if (req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'Content-Type': this.metrics.contentType }).end(await this.metrics.metrics());
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'POST a JSON-RPC request' } }));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > this.options.maxBodyBytes) {
        res.writeHead(413, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'request too large' } }));
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const answer = await this.handleText(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(answer ?? '');
  }

  private onSocket(socket: WebSocket): void {
    const mine = new Map<string, string>(); // client subscription id -> shared key
    socket.on('message', async (data) => {
      const text = data.toString();
      const answer = await this.handleText(text, { socket, subscriptions: mine });
      if (answer && socket.readyState === socket.OPEN) socket.send(answer);
    });
    socket.on('close', () => {
      for (const [id, key] of mine) void this.leave(key, id);
    });
  }

  /** One JSON text in, one JSON text out (or nothing, for a batch of notifications). */
  private async handleText(text: string, ws?: { socket: WebSocket; subscriptions: Map<string, string> }): Promise<string | undefined> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return JSON.stringify(failure(null, -32700, 'Parse error'));
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return JSON.stringify(failure(null, -32600, 'Invalid Request: empty batch'));
      const answers = await Promise.all(parsed.map((request) => this.handleOne(request as RpcRequest, ws)));
      const present = answers.filter((answer): answer is RpcResponse => answer !== undefined);
      return present.length ? JSON.stringify(present) : undefined;
    }
    const answer = await this.handleOne(parsed as RpcRequest, ws);
    return answer && JSON.stringify(answer);
  }

  private async handleOne(request: RpcRequest, ws?: { socket: WebSocket; subscriptions: Map<string, string> }): Promise<RpcResponse | undefined> {
    if (typeof request !== 'object' || request === null || typeof request.method !== 'string') {
      return failure(request?.id ?? null, -32600, 'Invalid Request');
    }
    const { id, method } = request;
    const params = Array.isArray(request.params) ? request.params : request.params === undefined ? [] : [request.params];
    try {
      if (SUBSCRIPTIONS[method]) {
        if (!ws) return failure(id, -32601, 'Subscriptions need a WebSocket connection');
        return success(id, await this.join(method, params, ws));
      }
      if (UNSUBSCRIBE.has(method)) {
        const subscriptionId = String(params[0]);
        const key = ws?.subscriptions.get(subscriptionId);
        if (!key || !ws) return success(id, false);
        ws.subscriptions.delete(subscriptionId);
        await this.leave(key, subscriptionId);
        return success(id, true);
      }
      const result = await this.answer(method, params);
      return id === undefined ? undefined : success(id, result);
    } catch (error) {
      if (error instanceof UpstreamRpcError) return failure(id, error.code, error.message, error.data);
      if (error instanceof NoUpstreamError) return failure(id, -32000, error.message);
      this.logger.warn({ err: error, method }, 'upstream call failed');
      return failure(id, -32000, `upstream call failed: ${(error as Error).message ?? String(error)}`);
    }
  }

  private async answer(method: string, params: unknown[]): Promise<unknown> {
    const decision = decide(method, params);
    const cacheKey =
      decision.kind === 'immutable' || (decision.kind === 'finalizedNumber' && decision.number <= this.pool.finalizedNumber) ? decision.key : undefined;
    if (cacheKey) {
      const cached = this.cache.get(cacheKey);
      if (cached !== undefined) {
        this.hits.inc();
        return JSON.parse(cached) as unknown;
      }
      this.misses.inc();
    }
    const mergeKey = cacheKey ?? (decision.kind === 'passThrough' ? decision.mergeKey : decision.key);
    if (!mergeKey) return this.upstream(method, params, false);
    const pending = this.inFlight.get(mergeKey);
    if (pending) {
      this.merged.inc();
      return pending;
    }
    const call = this.upstream(method, params, true).finally(() => this.inFlight.delete(mergeKey));
    this.inFlight.set(mergeKey, call);
    const result = await call;
    if (cacheKey && isCacheableResult(result)) this.cache.set(cacheKey, JSON.stringify(result));
    return result;
  }

  private upstream(method: string, params: unknown[], retry: boolean): Promise<unknown> {
    this.upstreamCalls.inc();
    return this.pool.call(method, params, retry);
  }

  private async join(method: string, params: unknown[], ws: { socket: WebSocket; subscriptions: Map<string, string> }): Promise<string> {
    const key = `${method}:${JSON.stringify(params)}`;
    const subscriptionId = `0x${(this.nextSubscriptionId++).toString(16).padStart(16, '0')}`;
    let shared = this.shared.get(key);
    if (!shared) {
      const created: SharedSubscription = { clients: new Map(), ready: Promise.resolve(async () => undefined) };
      created.ready = this.openUpstream(method, params, created);
      shared = created;
      this.shared.set(key, created);
      created.ready.catch(() => this.shared.delete(key));
    }
    await shared.ready;
    const { notification } = SUBSCRIPTIONS[method];
    const send = (result: unknown) => {
      if (ws.socket.readyState === ws.socket.OPEN) {
        ws.socket.send(JSON.stringify({ jsonrpc: '2.0', method: notification, params: { subscription: subscriptionId, result } }));
      }
    };
    shared.clients.set(subscriptionId, send);
    ws.subscriptions.set(subscriptionId, key);
    // A late joiner gets the latest value at once, as a fresh upstream subscription would send it.
    if (shared.last !== undefined) setImmediate(() => send(shared!.last));
    return subscriptionId;
  }

  private async openUpstream(method: string, params: unknown[], shared: SharedSubscription): Promise<() => Promise<void>> {
    const upstream = this.pool.subscriptionUpstream();
    if (!upstream) throw new NoUpstreamError('no upstream node is available');
    const { notification, unsubscribe } = SUBSCRIPTIONS[method];
    this.upstreamCalls.inc();
    const id = await upstream.provider.subscribe(notification, method, params, (error: Error | null, result: unknown) => {
      if (error) return;
      shared.last = result;
      for (const send of shared.clients.values()) send(result);
    });
    return async () => {
      await upstream.provider.unsubscribe(notification, unsubscribe, id).catch(() => undefined);
    };
  }

  private async leave(key: string, subscriptionId: string): Promise<void> {
    const shared = this.shared.get(key);
    if (!shared) return;
    shared.clients.delete(subscriptionId);
    if (shared.clients.size === 0) {
      this.shared.delete(key);
      const close = await shared.ready.catch(() => undefined);
      await close?.();
    }
  }
}

function success(id: unknown, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id: id ?? null, result };
}

function failure(id: unknown, code: number, message: string, data?: unknown): RpcResponse {
  return { jsonrpc: '2.0', id: id ?? null, error: data === undefined ? { code, message } : { code, message, data } };
}
