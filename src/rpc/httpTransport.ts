// JSON-RPC over HTTP(S) to one endpoint, used the way a hosted provider wants
// to be used: the calls issued in one turn of the event loop (a wave) go out
// as one batch POST on kept-alive connections (HTTP/2 where the server offers
// it over TLS: one connection, one stream per POST; httpDispatcher.ts), within
// a cap on POSTs in flight and an optional rate. An answer that says "slow
// down" (HTTP 429/503, a JSON-RPC "busy" or "too many requests" error) is
// honoured: sending pauses for its Retry-After, the limits are learned down,
// and the calls are sent again until their deadline. What an answer means is
// read by httpAnswer.ts, whether and when a call goes again is retryPolicy.ts's
// to say; this file queues, batches, sends and acts on both. Nothing here knows
// about blocks or about the rest of the code base, so the node client and the
// proxy's upstreams can both stand on it (as an RpcTransport, transport.ts).
import { AdaptiveLimits } from './adaptiveLimits';
import { classifyHttpAnswer, classifyHttpFailure, type HttpHeaders } from './httpAnswer';
import { HttpDispatcher, type HttpReply } from './httpDispatcher';
import { AnswerTooLargeError, NodeThrottledError, NodeTimeoutError, NodeUnavailableError } from './nodeErrors';
import { backoffMs, countsAsFailure, mayRetry, type FailureKind } from './retryPolicy';
import { SubscriptionsUnsupportedError, type CallOptions, type HttpRpcCounts, type RpcTransport } from './transport';

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

const DEFAULTS = { maxBatch: 100, maxInFlight: 20, timeoutMs: 30_000, maxResponseBytes: 256 * 1024 * 1024 };

export class HttpRpcTransport implements RpcTransport {
  readonly supportsSubscriptions = false;
  /** There is no connection to lose: every call says for itself whether the node answers. */
  readonly connected = true;
  readonly connection = 0;
  readonly ready: Promise<unknown> = Promise.resolve();
  private readonly http: HttpDispatcher;
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

  /** What was learned about the server. */
  private batchCap: number;
  private singleCalls = false;
  private readonly limits: AdaptiveLimits;
  private lastRetryAfterMs = 1000;

  readonly counts: HttpRpcCounts = { requests: 0, calls: 0, throttled: 0, retries: 0, batchesRefused: 0 };

  constructor(options: HttpRpcOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('an HTTP JSON-RPC endpoint must be http:// or https://');
    this.maxBatch = Math.max(1, options.maxBatch ?? DEFAULTS.maxBatch);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? DEFAULTS.maxInFlight);
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.coalesce = options.coalesce ?? true;
    this.hooks = options.hooks ?? {};
    this.batchCap = this.maxBatch;
    this.limits = new AdaptiveLimits(this.maxInFlight, options.ratePerSecond ?? 0);
    this.http = new HttpDispatcher({
      url,
      connections: this.maxInFlight,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
      http2: options.http2 ?? true,
      tls: options.tls,
      onProtocolKnown: () => this.pump(),
    });
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
    await this.http.close();
  }

  private newCall(method: string, params: unknown[], options: HttpCallOptions, resolve: (result: unknown) => void, reject: (error: Error) => void): Call {
    const deadline = options.deadline ?? Date.now() + this.timeoutMs;
    const call: Call = {
      method,
      params,
      deadline,
      idempotent: options.idempotent ?? true,
      resolve,
      reject,
      done: false,
      failures: 0,
      onRetry: options.onRetry,
      group: options.group,
    };
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
      const message = `the server's limits kept ${call.method} waiting past its deadline`;
      this.settle(call, new NodeThrottledError(message, call.throttledFor ?? this.lastRetryAfterMs));
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
    const limit = this.http.protocolKnown ? this.limits.inFlightLimit : 1;
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
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.pump();
      },
      Math.max(1, at - Date.now()),
    );
  }

  private async post(calls: Call[]) {
    const post: Post = { calls, controller: new AbortController(), sentAt: Date.now() };
    const ids: number[] = [];
    const messages = calls.map((call) => {
      const id = this.nextId++;
      ids.push(id);
      call.sending = post;
      return { jsonrpc: '2.0', id, method: call.method, params: call.params };
    });
    const now = Date.now();
    this.inFlightPosts += 1;
    this.counts.requests += 1;
    this.hooks.onRequest?.(calls.length);
    const latest = Math.max(...calls.map((call) => call.deadline));
    const abortTimer = setTimeout(() => post.controller.abort(), Math.max(0, latest - now) + 50);
    let answer: HttpReply | undefined;
    let failure: unknown;
    try {
      const body = JSON.stringify(messages.length > 1 ? messages : messages[0]);
      answer = await this.http.post(
        body,
        calls.every((call) => call.idempotent),
        post.controller.signal,
      );
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(abortTimer);
      this.inFlightPosts -= 1;
      for (const call of calls) if (call.sending === post) call.sending = undefined;
    }
    try {
      if (answer === undefined) this.onConnectionFailure(calls, failure);
      else this.onAnswer(post, ids, answer.status, answer.headers, answer.text);
    } catch (error) {
      // A bug of ours must not leave calls hanging.
      for (const call of calls) this.settle(call, error instanceof Error ? error : new Error(String(error)));
    }
    this.pump();
  }

  /**
   * Counts a failure of `kind` against each call still waiting (as the retry policy says it
   * counts), settles with `error` those the policy does not send again, and returns the others.
   * `at` is when a call would be sent again.
   */
  private judge(calls: Call[], kind: FailureKind, at: (call: Call) => number, error: (call: Call) => Error): Call[] {
    const again: Call[] = [];
    for (const call of calls) {
      if (call.done) continue;
      if (countsAsFailure(kind)) call.failures += 1;
      if (mayRetry(kind, call, at(call))) again.push(call);
      else this.settle(call, error(call));
    }
    return again;
  }

  /** The POST got no answer: a kept-alive connection the server had closed is tried again on a fresh one, anything else is an outage. */
  private onConnectionFailure(calls: Call[], error: unknown) {
    const { kind, message } = classifyHttpFailure(error);
    const text = `the JSON-RPC server cannot be reached: ${message}`;
    const failed = () => (kind === 'answerTooLarge' ? new AnswerTooLargeError(text) : new NodeUnavailableError(text));
    const now = Date.now();
    const again = this.judge(calls, kind === 'staleConnection' ? 'staleConnection' : 'fatal', () => now, failed);
    this.retry(again, 0, now);
  }

  private onAnswer(post: Post, ids: number[], status: number, headers: HttpHeaders, text: string) {
    const { calls, sentAt } = post;
    const answer = classifyHttpAnswer(status, headers, text, ids);
    switch (answer.kind) {
      case 'throttled':
        return this.throttle(calls, answer.retryAfterMs, answer.how, sentAt);
      case 'serverError':
        return this.serverError(calls, answer.message);
      case 'batchTooLarge':
        return this.batchTooLarge(calls);
      case 'batchRefused':
        return this.batchRefused(calls);
      case 'fatal':
        this.judge(calls, 'fatal', Date.now, () => new NodeUnavailableError(answer.message));
        return;
    }
    const throttled: Call[] = [];
    const unanswered: Call[] = [];
    answer.answers.forEach((callAnswer, at) => {
      const call = calls[at];
      if (callAnswer === undefined) unanswered.push(call);
      else if (callAnswer.kind === 'throttled') throttled.push(call);
      else if (callAnswer.kind === 'error') this.settle(call, callAnswer.error);
      else this.settle(call, undefined, callAnswer.result);
    });
    if (throttled.length > 0) this.throttle(throttled, answer.retryAfterMs, 'rpc', sentAt);
    else this.limits.answered();
    // A batch answered in part: the rest once more, one call each. A single call with no answer: a broken server.
    const now = Date.now();
    const noAnswer = () => new NodeUnavailableError('the JSON-RPC server sent no answer to the call');
    const again = this.judge(unanswered, calls.length > 1 ? 'unansweredInBatch' : 'fatal', () => now, noAnswer);
    this.retry(again, 0, now, true);
  }

  /** The server said to slow down: pause all sending for its Retry-After (or a back-off), learn, and send again in time. */
  private throttle(calls: Call[], retryAfter: number | undefined, how: string, sentAt: number) {
    const now = Date.now();
    this.counts.throttled += 1;
    this.hooks.onThrottled?.(how);
    const attempts = Math.max(...calls.map((call) => call.failures)) + 1;
    const pause = backoffMs(attempts, retryAfter, Math.random);
    this.lastRetryAfterMs = Math.max(pause, 1);
    // This POST no longer counts as in flight: the server had as many as are now, and it.
    const pausedUntil = this.limits.throttled(now, sentAt, this.inFlightPosts + 1, pause);
    for (const call of calls) call.throttledFor = pausedUntil - now;
    // No retry can happen in time: said now rather than at the deadline.
    const tooLate = (call: Call) =>
      new NodeThrottledError(`the server asked to slow down (${how}) and ${call.method} cannot be retried in time`, pausedUntil - now);
    const again = this.judge(calls, 'throttled', () => pausedUntil, tooLate);
    this.retry(again, 0, pausedUntil);
  }

  /** An error page: sent again after a back-off, twice at most, if that fits before the deadline. */
  private serverError(calls: Call[], message: string) {
    const now = Date.now();
    const again = this.judge(
      calls,
      'serverError',
      (call) => now + backoffMs(call.failures),
      () => new NodeUnavailableError(message),
    );
    if (again.length > 0) this.retry(again, backoffMs(Math.max(...again.map((call) => call.failures))), now);
  }

  private batchTooLarge(calls: Call[]) {
    this.counts.batchesRefused += 1;
    this.hooks.onBatchRefused?.('tooLarge');
    this.batchCap = Math.max(1, Math.min(this.batchCap, Math.floor(calls.length / 2)));
    if (this.batchCap === 1) this.singleCalls = true;
    const now = Date.now();
    this.retry(
      this.judge(
        calls,
        'batchRefused',
        () => now,
        () => new NodeUnavailableError('the JSON-RPC server refused the batch'),
      ),
      0,
      now,
    );
  }

  private batchRefused(calls: Call[]) {
    this.counts.batchesRefused += 1;
    this.hooks.onBatchRefused?.('refused');
    this.singleCalls = true;
    const now = Date.now();
    this.retry(
      this.judge(
        calls,
        'batchRefused',
        () => now,
        () => new NodeUnavailableError('the JSON-RPC server refused the batch'),
      ),
      0,
      now,
    );
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
}
