// JSON-RPC over HTTP(S) to one endpoint, used the way a hosted provider wants
// to be used: the calls issued in one turn of the event loop (a wave) go out
// as one batch POST on kept-alive connections (HTTP/2 where the server offers
// it over TLS: one connection, one stream per POST), within a cap on POSTs in
// flight and an optional rate. An answer that says "slow down" (HTTP 429/503,
// a JSON-RPC "busy" or "too many requests" error) is honoured: sending pauses
// for its Retry-After, the limits are learned down, and the calls are sent
// again until their deadline. Nothing here knows about blocks or about the
// rest of the code base, so the node client and the proxy's upstreams can
// both stand on it (as an RpcTransport, transport.ts).
import { buildConnector, Client, Pool, type Dispatcher } from 'undici';

import { AdaptiveLimits } from './adaptiveLimits';
import { NodeThrottledError, NodeTimeoutError, NodeUnavailableError, RpcError } from './nodeErrors';
import { SubscriptionsUnsupportedError, type CallOptions, type RpcTransport } from './transport';

export interface HttpRpcHooks {
  /** A POST went out carrying this many calls. */
  onRequest?(calls: number): void;
  /** The server asked to slow down: `how` is `http429`, `http503` or `rpc` (a JSON-RPC error). */
  onThrottled?(how: string): void;
  /** Calls about to be sent again after a throttled or failed attempt. */
  onRetry?(calls: number): void;
  /** The server refused a batch: `tooLarge` (smaller batches from now on) or `refused` (single calls from now on). */
  onBatchRefused?(reason: 'tooLarge' | 'refused'): void;
}

/** Running totals: POSTs sent, calls carried, throttled answers, calls sent again, batches refused. */
export interface HttpRpcCounts {
  requests: number;
  calls: number;
  throttled: number;
  retries: number;
  batchesRefused: number;
}

export interface HttpRpcOptions {
  url: string;
  /** Calls in one batch POST; a larger wave is split (learned down if the server says a batch is too large). Default 100. */
  maxBatch?: number;
  /** POSTs in flight at once (learned down from throttled answers, back up from ordinary ones). Default 20. */
  maxInFlight?: number;
  /** POSTs per second at most; 0: none of our own (one is still learned from throttled answers). */
  ratePerSecond?: number;
  /** How long a call may take, retries included, unless it brings its own deadline. Default 30 s. */
  timeoutMs?: number;
  /** Offer HTTP/2 over TLS (the server picks by ALPN). Default true. */
  http2?: boolean;
  /** TLS settings of the connection, for a server with a certificate of its own (tests). */
  tls?: { ca?: string | Buffer; rejectUnauthorized?: boolean };
  /** Gather the calls issued in the same event-loop turn into one batch. Default true. */
  coalesce?: boolean;
  /** Largest answer read, in bytes. Default 256 MiB. */
  maxResponseBytes?: number;
  hooks?: HttpRpcHooks;
}

export interface HttpCallOptions extends CallOptions {
  /** When the call (retries included) must be answered, epoch ms; default now + timeoutMs. */
  deadline?: number;
}

export type WaveOutcome = { ok: true; result: unknown } | { ok: false; error: Error };

interface Call {
  method: string;
  params: unknown[];
  deadline: number;
  idempotent: boolean;
  resolve(result: unknown): void;
  reject(error: Error): void;
  done: boolean;
  /** The POST carrying it, while one does. */
  sending?: Post;
  /** Set once a throttled answer made it wait: a deadline then passing is the provider's limit, not a slow answer. */
  throttledFor?: number;
  failures: number;
  timer?: NodeJS.Timeout;
  onRetry?(round: number): void;
  group?: unknown;
}

interface Post {
  calls: Call[];
  controller: AbortController;
  sentAt: number;
}

interface JsonRpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

const DEFAULTS = { maxBatch: 100, maxInFlight: 20, timeoutMs: 30_000, maxResponseBytes: 256 * 1024 * 1024 };
/** A Retry-After longer than this is read as this: a bogus header must not stop the client for hours. */
const MAX_PAUSE_MS = 60_000;
/** Without a Retry-After: 250 ms, doubling per throttled attempt of a call, at most 8 s. */
const BASE_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;
/** Failures of the connection itself (a kept-alive socket the server closed) a call is sent again for. */
const CONNECTION_RETRIES = 2;

/** JSON-RPC errors meaning "slow down": jsonrpsee's busy, the common providers' limit codes, and their words. */
const THROTTLE_CODES = new Set([-32005, -32009, -32097, -32098, 429]);
const THROTTLE_WORDS = /too many requests|rate.?limit|request limit|limit exceeded|server is busy|\bbusy\b|overload|over capacity|throttl/i;
const BATCH_TOO_LARGE_CODE = -32010;
const BATCH_TOO_LARGE_WORDS = /batch.*(too large|too big|size|limit|exceed)|too many (calls|requests) in (a |the )?batch/i;
/** Errors of a connection the server closed under us: worth one more try on a fresh one. */
const STALE_CONNECTION = /ECONNRESET|EPIPE|UND_ERR_SOCKET|other side closed|socket hang up|UND_ERR_CLOSED/i;

export class HttpRpcTransport implements RpcTransport {
  readonly supportsSubscriptions = false;
  /** There is no connection to lose: every call says for itself whether the node answers. */
  readonly connected = true;
  readonly connection = 0;
  readonly ready: Promise<unknown> = Promise.resolve();
  /** Over HTTP/2 one Client (one connection, a stream per POST); over HTTP/1.1 a Pool (a kept-alive connection per POST in flight). */
  private dispatcher: Dispatcher;
  private readonly retired: Dispatcher[] = [];
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly timeoutMs: number;
  private readonly coalesce: boolean;
  private readonly hooks: HttpRpcHooks;

  /** Calls issued this turn, not yet made into POSTs. */
  private collecting: Call[] = [];
  private flushScheduled = false;
  /** POSTs waiting for a slot, a token of the rate, or the end of a pause. */
  private readonly queue: Call[][] = [];
  private inFlightPosts = 0;
  private unsettled = 0;
  private nextId = 1;
  private closed = false;
  private wakeTimer?: NodeJS.Timeout;
  private wakeAt = 0;
  /** Over TLS with HTTP/2 offered, until the first connection says which protocol it speaks: one POST at a time. */
  private protocolKnown: boolean;

  /** What was learned about the server. */
  private batchCap: number;
  private singleCalls = false;
  private readonly limits: AdaptiveLimits;
  private lastRetryAfterMs = 1000;

  readonly counts: HttpRpcCounts = { requests: 0, calls: 0, throttled: 0, retries: 0, batchesRefused: 0 };

  constructor(options: HttpRpcOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('an HTTP JSON-RPC endpoint must be http:// or https://');
    this.path = `${url.pathname || '/'}${url.search}`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (url.username || url.password) {
      this.headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    }
    this.maxBatch = Math.max(1, options.maxBatch ?? DEFAULTS.maxBatch);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? DEFAULTS.maxInFlight);
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.coalesce = options.coalesce ?? true;
    this.hooks = options.hooks ?? {};
    this.batchCap = this.maxBatch;
    this.limits = new AdaptiveLimits(this.maxInFlight, options.ratePerSecond ?? 0);
    const allowH2 = options.http2 ?? true;
    const maxResponseSize = options.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
    const openPool = () => {
      const pool = new Pool(url.origin, { connections: this.maxInFlight, maxResponseSize, connect: options.tls ? { ...options.tls } : undefined });
      // Errors reach the requests that meet them; the pool itself must not throw unhandled.
      pool.on('connectionError', () => undefined);
      return pool;
    };
    this.protocolKnown = url.protocol === 'http:' || !allowH2;
    if (this.protocolKnown) {
      this.dispatcher = openPool();
    } else {
      // The protocol the connection settled on, seen as it is made (its 'connect' event follows at once).
      const connector = buildConnector({ ...options.tls, allowH2: true, timeout: 10_000 });
      let negotiated: string | undefined;
      const client = new Client(url.origin, {
        allowH2: true,
        pipelining: this.maxInFlight,
        maxResponseSize,
        connect: (connectOptions, callback) =>
          connector(connectOptions, (error, socket) => {
            negotiated = error ? undefined : (socket as { alpnProtocol?: string | false }).alpnProtocol || undefined;
            callback(error, socket as never);
          }),
      });
      client.on('connectionError', () => undefined);
      client.on('connect', () => {
        if (this.protocolKnown) return;
        this.protocolKnown = true;
        if (negotiated !== 'h2') {
          // HTTP/1.1 after all: pipelining on one connection would queue POSTs behind each other.
          this.dispatcher = openPool();
          this.retired.push(client);
          void client.close().catch(() => undefined);
        }
        this.pump();
      });
      this.dispatcher = client;
    }
  }

  /** Calls sent and not yet answered or given up. */
  get pending(): number {
    return this.unsettled;
  }

  get httpCounts(): HttpRpcCounts {
    return this.counts;
  }

  /** What the client has learned and holds to now: POSTs in flight allowed, per second, calls per batch. */
  get learned(): { inFlight: number; ratePerSecond: number; batch: number; singleCalls: boolean } {
    return { inFlight: this.limits.inFlightLimit, ratePerSecond: this.limits.ratePerSecond, batch: this.batchCap, singleCalls: this.singleCalls };
  }

  /** One call; calls issued in the same turn share a POST. */
  send<T>(method: string, params: unknown[], options: HttpCallOptions = {}): Promise<T> {
    const promise = new Promise<unknown>((resolve, reject) => {
      if (this.closed) {
        reject(new NodeUnavailableError('the HTTP JSON-RPC client is closed'));
        return;
      }
      this.collecting.push(this.newCall(method, params, options, resolve, reject));
    });
    if (!this.coalesce) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return promise as Promise<T>;
  }

  /** Calls that go out together now (with any issued this turn); each answer or error in order. */
  sendWave(calls: { method: string; params: unknown[] }[], options: HttpCallOptions = {}): Promise<WaveOutcome[]> {
    const outcomes = calls.map(({ method, params }) =>
      new Promise<unknown>((resolve, reject) => {
        if (this.closed) reject(new NodeUnavailableError('the HTTP JSON-RPC client is closed'));
        else this.collecting.push(this.newCall(method, params, options, resolve, reject));
      }).then(
        (result): WaveOutcome => ({ ok: true, result }),
        (error: Error): WaveOutcome => ({ ok: false, error }),
      ),
    );
    this.flush();
    return Promise.all(outcomes);
  }

  async subscribe(notification: string): Promise<() => Promise<void>> {
    throw new SubscriptionsUnsupportedError(`${notification} needs a WebSocket upstream: HTTP(S) carries no subscriptions`);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.wakeTimer);
    const waiting = [...this.collecting, ...this.queue.flat()];
    this.collecting = [];
    this.queue.length = 0;
    for (const call of waiting) this.settle(call, new NodeUnavailableError('the HTTP JSON-RPC client is closed'));
    await Promise.all([this.dispatcher, ...this.retired].map((dispatcher) => dispatcher.destroy().catch(() => undefined)));
  }

  private newCall(method: string, params: unknown[], options: HttpCallOptions, resolve: (result: unknown) => void, reject: (error: Error) => void): Call {
    const deadline = options.deadline ?? Date.now() + this.timeoutMs;
    const call: Call = { method, params, deadline, idempotent: options.idempotent ?? true, resolve, reject, done: false, failures: 0, onRetry: options.onRetry, group: options.group };
    this.unsettled += 1;
    this.counts.calls += 1;
    call.timer = setTimeout(() => this.expire(call), Math.max(0, deadline - Date.now()));
    return call;
  }

  /** The call's deadline passed: a call still waiting because of the server's limits is throttled, one sent is late. */
  private expire(call: Call) {
    if (call.done) return;
    const post = call.sending;
    if (post) {
      this.settle(call, new NodeTimeoutError(`no answer to ${call.method} in time`));
      // Nobody waits for that POST any more: its slot is freed.
      if (post.calls.every((c) => c.done)) post.controller.abort();
    } else {
      this.settle(call, new NodeThrottledError(`the server's limits kept ${call.method} waiting past its deadline`, call.throttledFor ?? this.lastRetryAfterMs));
    }
  }

  private settle(call: Call, error: Error | undefined, result?: unknown) {
    if (call.done) return;
    call.done = true;
    call.sending = undefined;
    clearTimeout(call.timer);
    this.unsettled -= 1;
    if (error) call.reject(error);
    else call.resolve(result);
  }

  private flush() {
    this.flushScheduled = false;
    const calls = this.collecting;
    this.collecting = [];
    const groups = new Map<unknown, Call[]>();
    for (const call of calls) {
      const group = groups.get(call.group);
      if (group) group.push(call);
      else groups.set(call.group, [call]);
    }
    for (const group of groups.values()) this.enqueue(group, false);
    this.pump();
  }

  /** Cuts calls into POSTs (batches up to the cap, or one call each) and queues them, at the front when they are retries. */
  private enqueue(calls: Call[], front: boolean) {
    const live = calls.filter((call) => !call.done);
    if (live.length === 0) return;
    const posts: Call[][] = [];
    const size = this.singleCalls ? 1 : this.batchCap;
    for (let i = 0; i < live.length; i += size) posts.push(live.slice(i, i + size));
    if (front) this.queue.unshift(...posts);
    else this.queue.push(...posts);
  }

  private pump() {
    if (this.closed) return;
    // Without a connection yet, POSTs sent at once would each open one, before any could turn out to be HTTP/2.
    const limit = this.protocolKnown ? this.limits.inFlightLimit : 1;
    while (this.queue.length > 0 && this.inFlightPosts < limit) {
      const calls = this.queue[0].filter((call) => !call.done);
      if (calls.length === 0) {
        this.queue.shift();
        continue;
      }
      const now = Date.now();
      const wait = this.limits.take(now);
      if (wait > 0) return this.wake(now + wait);
      this.queue.shift();
      void this.post(calls);
    }
  }

  private wake(at: number) {
    if (this.wakeTimer && this.wakeAt <= at) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.pump();
    }, Math.max(1, at - Date.now()));
  }

  private async post(calls: Call[]) {
    const asBatch = calls.length > 1;
    const post: Post = { calls, controller: new AbortController(), sentAt: Date.now() };
    const byId = new Map<number, Call>();
    const messages = calls.map((call) => {
      const id = this.nextId++;
      byId.set(id, call);
      call.sending = post;
      return { jsonrpc: '2.0', id, method: call.method, params: call.params };
    });
    const now = Date.now();
    this.inFlightPosts += 1;
    this.counts.requests += 1;
    this.hooks.onRequest?.(calls.length);
    const latest = Math.max(...calls.map((call) => call.deadline));
    const abortTimer = setTimeout(() => post.controller.abort(), Math.max(0, latest - now) + 50);
    let status = 0;
    let headers: Record<string, string | string[] | undefined> = {};
    let text = '';
    let failure: unknown;
    try {
      const response = await this.dispatcher.request({
        path: this.path,
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify(asBatch ? messages : messages[0]),
        idempotent: calls.every((call) => call.idempotent),
        signal: post.controller.signal,
      });
      status = response.statusCode;
      headers = response.headers;
      text = await response.body.text();
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(abortTimer);
      this.inFlightPosts -= 1;
      for (const call of calls) if (call.sending === post) call.sending = undefined;
    }
    try {
      if (failure !== undefined) this.onConnectionFailure(calls, failure);
      else this.onAnswer(post, byId, asBatch, status, headers, text);
    } catch (error) {
      // A bug of ours must not leave calls hanging.
      for (const call of calls) this.settle(call, error instanceof Error ? error : new Error(String(error)));
    }
    this.pump();
  }

  private onConnectionFailure(calls: Call[], error: unknown) {
    const live = calls.filter((call) => !call.done);
    if (live.length === 0) return;
    const message = describeError(error);
    const retriable = live.filter((call) => call.idempotent && call.failures < CONNECTION_RETRIES && STALE_CONNECTION.test(message));
    for (const call of live) {
      if (retriable.includes(call)) call.failures += 1;
      else this.settle(call, new NodeUnavailableError(`the JSON-RPC server cannot be reached: ${message}`));
    }
    if (retriable.length > 0) this.retry(retriable, 0, Date.now());
  }

  private onAnswer(post: Post, byId: Map<number, Call>, asBatch: boolean, status: number, headers: Record<string, string | string[] | undefined>, text: string) {
    const { calls, sentAt } = post;
    const retryAfter = retryAfterMs(headers);
    if (status === 429 || status === 503) return this.throttle(calls, retryAfter, `http${status}`, sentAt);
    const json = parseJson(text);
    const speaksJsonRpc = Array.isArray(json) || isAnswer(json);
    // A gateway's error page, a server that fell over: worth another try or two.
    if (status >= 500 && !speaksJsonRpc) return this.transientFailure(calls, `the JSON-RPC server answered HTTP ${status}`);
    if (asBatch) {
      if (status === 413 || (isErrorObject(json) && isBatchTooLarge(json))) return this.batchTooLarge(calls);
      if (isErrorObject(json) && isThrottle(json)) return this.throttle(calls, retryAfter, 'rpc', sentAt);
      // Anything but a list of answers (a 4xx, one error for the whole batch, nonsense): this server takes single calls.
      if (!Array.isArray(json)) return this.batchRefused(calls);
    } else if (!speaksJsonRpc) {
      return this.settleAll(calls, new NodeUnavailableError(`the JSON-RPC server answered HTTP ${status} without a JSON-RPC answer`));
    }
    const answers = (Array.isArray(json) ? json : [json]) as JsonRpcAnswer[];
    const throttled: Call[] = [];
    const unanswered = new Set(calls);
    for (const answer of answers) {
      if (!isAnswer(answer)) continue;
      // A single call answered with a null id (some servers do so for errors) is still its answer.
      const call = typeof answer.id === 'number' ? byId.get(answer.id) : !asBatch ? calls[0] : undefined;
      if (!call || !unanswered.has(call)) continue;
      unanswered.delete(call);
      if (answer.error) {
        if (isThrottle(answer)) throttled.push(call);
        else this.settle(call, new RpcError(Number(answer.error.code), String(answer.error.message ?? ''), answer.error.data));
      } else {
        this.settle(call, undefined, answer.result);
      }
    }
    if (throttled.length > 0) this.throttle(throttled, retryAfter, 'rpc', sentAt);
    else this.limits.answered();
    // A batch answered in part: the rest once more, one call each. A single call with no answer: a broken server.
    const again: Call[] = [];
    for (const call of unanswered) {
      call.failures += 1;
      if (asBatch && call.failures <= CONNECTION_RETRIES) again.push(call);
      else this.settle(call, new NodeUnavailableError('the JSON-RPC server sent no answer to the call'));
    }
    this.retry(again, 0, Date.now(), true);
  }

  private settleAll(calls: Call[], error: Error) {
    for (const call of calls) this.settle(call, error);
  }

  /** The server said to slow down: pause all sending for its Retry-After (or a back-off), learn, and send again in time. */
  private throttle(calls: Call[], retryAfter: number | undefined, how: string, sentAt: number) {
    const now = Date.now();
    this.counts.throttled += 1;
    this.hooks.onThrottled?.(how);
    const attempts = Math.max(...calls.map((call) => call.failures)) + 1;
    const backoff = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (attempts - 1));
    const pause = Math.min(MAX_PAUSE_MS, retryAfter ?? Math.round(backoff * (0.75 + Math.random() / 2)));
    this.lastRetryAfterMs = Math.max(pause, 1);
    // This POST no longer counts as in flight: the server had as many as are now, and it.
    const pausedUntil = this.limits.throttled(now, sentAt, this.inFlightPosts + 1, pause);
    const again: Call[] = [];
    for (const call of calls) {
      if (call.done) continue;
      call.failures += 1;
      call.throttledFor = pausedUntil - now;
      if (!call.idempotent || pausedUntil >= call.deadline) {
        // No retry can happen in time: said now rather than at the deadline.
        this.settle(call, new NodeThrottledError(`the server asked to slow down (${how}) and ${call.method} cannot be retried in time`, pausedUntil - now));
      } else {
        again.push(call);
      }
    }
    this.retry(again, 0, pausedUntil);
  }

  /** Sends calls again, after `delayMs`; `round` names the attempt the calls share. */
  private retry(calls: Call[], delayMs: number, round: number, single = false) {
    const live = calls.filter((call) => !call.done);
    if (live.length === 0) return;
    this.counts.retries += live.length;
    this.hooks.onRetry?.(live.length);
    for (const call of live) call.onRetry?.(round);
    const requeue = () => {
      if (this.closed) return;
      if (single) for (const call of live) this.queue.unshift([call]);
      else this.enqueue(live, true);
      this.pump();
    };
    if (delayMs > 0) setTimeout(requeue, delayMs);
    else requeue();
  }

  private transientFailure(calls: Call[], message: string) {
    const now = Date.now();
    const retriable: Call[] = [];
    for (const call of calls) {
      if (call.done) continue;
      call.failures += 1;
      const backoff = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (call.failures - 1));
      if (call.idempotent && call.failures <= CONNECTION_RETRIES && now + backoff < call.deadline) retriable.push(call);
      else this.settle(call, new NodeUnavailableError(message));
    }
    if (retriable.length > 0) this.retry(retriable, BASE_BACKOFF_MS * 2 ** (Math.max(...retriable.map((call) => call.failures)) - 1), now);
  }

  private batchTooLarge(calls: Call[]) {
    this.counts.batchesRefused += 1;
    this.hooks.onBatchRefused?.('tooLarge');
    this.batchCap = Math.max(1, Math.min(this.batchCap, Math.floor(calls.length / 2)));
    if (this.batchCap === 1) this.singleCalls = true;
    this.retry(calls, 0, Date.now());
  }

  private batchRefused(calls: Call[]) {
    this.counts.batchesRefused += 1;
    this.hooks.onBatchRefused?.('refused');
    this.singleCalls = true;
    this.retry(calls, 0, Date.now());
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isAnswer(value: unknown): value is JsonRpcAnswer {
  return typeof value === 'object' && value !== null && ('result' in value || 'error' in value);
}

function isErrorObject(value: unknown): value is JsonRpcAnswer & { error: object } {
  return isAnswer(value) && typeof value.error === 'object' && value.error !== null;
}

function isThrottle(answer: JsonRpcAnswer): boolean {
  const code = Number(answer.error?.code);
  return THROTTLE_CODES.has(code) || THROTTLE_WORDS.test(String(answer.error?.message ?? ''));
}

function isBatchTooLarge(answer: JsonRpcAnswer): boolean {
  return Number(answer.error?.code) === BATCH_TOO_LARGE_CODE || BATCH_TOO_LARGE_WORDS.test(String(answer.error?.message ?? ''));
}

/** Retry-After in ms: seconds (whole or not) or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const raw = headers['retry-after'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(MAX_PAUSE_MS, Math.round(Number(value) * 1000));
  if (!/[a-z]/i.test(value)) return undefined; // a negative or otherwise unreadable number
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(MAX_PAUSE_MS, Math.max(0, at - now));
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: unknown })?.cause;
  const causeText = cause instanceof Error ? ` (${cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${message}${causeText}`;
}
