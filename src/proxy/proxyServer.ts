// The caching JSON-RPC proxy: WebSocket and HTTP POST on one port, single
// calls and batches, answers that cannot change served from a memory-bounded
// cache, identical calls in flight merged, subscriptions shared between
// clients. /health and /metrics answer plain GETs.
//
// It meets strangers, so each part checks what it is handed: every message
// before it is used (jsonRpc.ts); only allowed methods with sound params reach a
// node (methods.ts); only answers of the right shape are kept (callRouter.ts,
// resultShapes.ts); each client address has caps on connections, requests and
// subscriptions (clientBook.ts), connections take turns with caps on calls in
// flight (fairScheduler.ts); answers are bounded in size here and written only
// as fast as their client reads them (outgoing.ts, openSockets.ts). No input
// ends the process: every connection and every message has its own catch
// (proxyFront.ts).
import type { Logger } from '../logger';
import { ArchiveHeight } from './archiveHeight';
import { NodeTimeoutError, RpcError } from '../rpc/nodeErrors';
import { RpcCode } from '../rpc/rpcCodes';
import { resultText, type ResultText } from './answerCache';
import { CallRouter } from './callRouter';
import { ClientBook, type ClientCaps } from './clientBook';
import type { Connection } from './connection';
import { FairScheduler, LaneClosedError, type FairSchedulerOptions } from './fairScheduler';
import { failure, parseMessage, plainCall, readCall, type RpcCall, type RpcId, type RpcResponse } from './jsonRpc';
import { MethodPolicy, type MethodPolicyOptions } from './methods';
import { OpenSockets } from './openSockets';
import { CHUNK_CHARS, Outgoing } from './outgoing';
import type { ProxyLimits, ProxyRateLimits } from './proxyConfig';
import { ProxyFront } from './proxyFront';
import { ProxyMetrics, type RefusedReason } from './proxyMetrics';
import { RateGate } from './rateGate';
import { AbandonedCallError, Slots } from '../slots';
import { StickyRoutes, unsubscribeAnswer } from './stickyRoutes';
import { SubscriptionHub } from './subscriptionHub';
import { TipAnswers } from './tipAnswers';
import { registerTipMetrics } from './tipMetrics';
import { TipTracker } from './tipTracker';
import { NoUpstreamError, type UpstreamPool } from './upstreamPool';

export interface ProxyOptions extends ProxyLimits, ProxyRateLimits {
  host: string;
  port: number;
  cacheMaxBytes: number;
  /** Answers to reads of "latest" state kept for the tip; 0: such reads go to a node as they are. */
  tipCacheMaxBytes?: number;
  maxBodyBytes: number;
  methods: MethodPolicyOptions;
}

/** Kept for the tip unless told otherwise. */
const TIP_CACHE_DEFAULT_BYTES = 64 * 1024 * 1024;

/** What is left of a batch's answer size limit. */
interface Budget {
  left: number;
  /** An answer did not fit: calls not yet started are refused. */
  full: boolean;
}

/** Calls the scheduler starts in one turn of the event loop. */
const PER_TURN = 64;

export class RpcProxy {
  readonly metrics: ProxyMetrics;
  private readonly policy: MethodPolicy;
  private readonly scheduler: FairScheduler;
  private readonly book: ClientBook;
  private readonly router: CallRouter;
  private readonly hub: SubscriptionHub;
  private readonly sticky: StickyRoutes;
  private readonly archiveHeight: ArchiveHeight;
  private readonly sockets: OpenSockets;
  private readonly front: ProxyFront;
  private readonly tracker: TipTracker;
  private readonly tipAnswers: TipAnswers;
  /** Held to be changed by a reload: the scheduler and the client book read them on every call. */
  private readonly schedulerOptions: FairSchedulerOptions;
  private readonly clientCaps: ClientCaps;
  /** Rate limits per client address; none when none is set. */
  private readonly gate?: RateGate;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly pool: UpstreamPool,
    private readonly options: ProxyOptions,
    private readonly logger: Logger,
  ) {
    this.metrics = new ProxyMetrics(pool, { cacheBytes: () => this.router.cacheBytes, unsentBytes: () => this.sockets.unsentBytes });
    this.policy = new MethodPolicy(options.methods);
    this.schedulerOptions = { perLane: options.maxInFlightPerConnection, perGroup: options.maxInFlightPerClient, perTurn: PER_TURN };
    this.scheduler = new FairScheduler(this.schedulerOptions);
    this.clientCaps = {
      maxConnectionsPerClient: options.maxConnectionsPerClient,
      // An address's HTTP requests in progress are held to what one WebSocket may have waiting.
      maxRequestsPerClient: options.maxQueuedPerConnection,
      maxSubscriptionsPerClient: options.maxSubscriptionsPerClient,
      requestsAreConnections: options.trustedProxies > 0,
    };
    this.book = new ClientBook(
      this.clientCaps,
      () => this.scheduler.group(),
      () => new Slots(this.options.maxInFlightPerClient),
    );
    this.tracker = new TipTracker(pool, logger);
    this.tipAnswers = new TipAnswers(this.tracker, options.tipCacheMaxBytes ?? TIP_CACHE_DEFAULT_BYTES);
    registerTipMetrics(this.metrics.registry, this.tracker, this.tipAnswers);
    this.router = new CallRouter(pool, this.policy, options, this.metrics, this.tipAnswers);
    this.gate = RateGate.of(options, this.metrics.registry, logger);
    this.sticky = new StickyRoutes(pool, this.metrics);
    this.archiveHeight = new ArchiveHeight(pool);
    this.hub = new SubscriptionHub(pool, this.book, options, this.metrics, this.sticky);
    this.sockets = new OpenSockets(options, this.metrics);
    this.front = new ProxyFront(
      options,
      { pool, book: this.book, scheduler: this.scheduler, sockets: this.sockets, metrics: this.metrics, logger },
      { message: (text, connection) => this.handleText(text, connection), gone: (connection) => this.hub.leaveAll(connection) },
    );
  }

  async listen(): Promise<string> {
    const { pingIntervalMs, sendTimeoutMs, idleTimeoutMs } = this.options;
    // Without a tip cache nothing reads the tip: no node is asked for its heads.
    if (this.tipFollowed()) this.tracker.start();
    this.every(pingIntervalMs, () => this.sockets.heartbeat());
    this.every(Math.max(100, Math.min(1000, sendTimeoutMs / 4, idleTimeoutMs / 4)), () => {
      this.sockets.sweep();
      this.front.sweep();
      this.book.prune();
    });
    return this.front.listen();
  }

  private every(ms: number, work: () => void): void {
    const timer = setInterval(work, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Stops taking connections, lets answers in flight finish, then closes upstreams. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.front.close();
    await this.router.drain();
    await this.tracker.close();
    await this.pool.close();
    this.gate?.close();
  }

  /**
   * A reload: `next`'s limits, method lists and cache bounds hold from the next call
   * on (a client's cap on calls at the nodes from its next connection), and the tip
   * is followed on the pool's upstreams as they are now. Settings read only at
   * start are the caller's to keep as they were (reload.ts).
   */
  reconfigure(next: ProxyOptions): void {
    Object.assign(this.options, next);
    this.schedulerOptions.perLane = next.maxInFlightPerConnection;
    this.schedulerOptions.perGroup = next.maxInFlightPerClient;
    this.clientCaps.maxConnectionsPerClient = next.maxConnectionsPerClient;
    this.clientCaps.maxRequestsPerClient = next.maxQueuedPerConnection;
    this.clientCaps.maxSubscriptionsPerClient = next.maxSubscriptionsPerClient;
    this.policy.update(next.methods);
    this.router.resizeCache(next.cacheMaxBytes);
    this.tipAnswers.resize(next.tipCacheMaxBytes ?? TIP_CACHE_DEFAULT_BYTES);
    if (this.tipFollowed()) this.tracker.start();
  }

  private tipFollowed(): boolean {
    return (this.options.tipCacheMaxBytes ?? TIP_CACHE_DEFAULT_BYTES) > 0;
  }

  /**
   * One JSON text in, one JSON text out (or nothing, when only notifications came). A
   * single call answered from the cache, its client let in at once, is answered here
   * and now: no Promise, no turn at the scheduler (it costs less than taking one).
   */
  private handleText(text: string, connection: Connection): Outgoing | undefined | Promise<Outgoing | undefined> {
    const plain = plainCall(text);
    if (plain) return this.handlePlain(plain, connection);
    const parsed = parseMessage(text);
    if (!parsed.ok) return this.refuse('malformed', parsed.response);
    const { value } = parsed;
    if (this.gate && !this.gate.admitNow(connection.client.key, value)) return this.afterGate(value, connection);
    if (Array.isArray(value)) return this.handleBatch(value, connection);
    const read = readCall(value);
    if ('response' in read) return this.refuse('malformed', read.response);
    return this.cachedAnswer(read.call, connection) ?? this.handleOne(read, connection);
  }

  /** A single call of a plain shape (plainCall): the same steps as handleText's, with the call read already. */
  private handlePlain(call: RpcCall, connection: Connection): Outgoing | Promise<Outgoing | undefined> {
    if (this.gate && !this.gate.admitNow(connection.client.key, call)) {
      // The message as JSON.parse would have given it: the gate's refusal reads each call from it.
      return this.afterGate({ jsonrpc: '2.0', id: call.id, method: call.method, params: call.params }, connection);
    }
    return this.cachedAnswer(call, connection) ?? this.handleOne({ call }, connection);
  }

  /** A message whose client must wait for the rate limits' counters first. */
  private async afterGate(value: unknown, connection: Connection): Promise<Outgoing | undefined> {
    const limited = await this.gate!.check(connection.client.key, value);
    if (limited) return limited;
    if (Array.isArray(value)) return this.handleBatch(value, connection);
    return this.handleOne(readCall(value), connection);
  }

  /**
   * The answer to a call the cache holds, small enough to go out whole, for a client
   * whose answers are being taken; undefined for anything else (the scheduler's path).
   */
  private cachedAnswer(call: RpcCall, connection: Connection): Outgoing | undefined {
    if (call.notification || connection.lane.held) return undefined;
    const { method, params } = call;
    if (!this.policy.permits(method) || this.policy.paramsProblem(method, params)) return undefined;
    const result = this.router.cached(method, params);
    if (!result || result.bytes > this.options.maxAnswerBytes || result.bytes > CHUNK_CHARS) return undefined;
    return successAnswer(call.id, result);
  }

  private async handleBatch(batch: unknown[], connection: Connection): Promise<Outgoing | undefined> {
    if (batch.length === 0) return this.refuse('malformed', failure(null, RpcCode.invalidRequest, 'Invalid Request: empty batch'));
    if (batch.length > this.options.maxBatchSize) {
      return this.refuse('batch', failure(null, RpcCode.batchTooLarge, `Batch too large: ${batch.length} calls, at most ${this.options.maxBatchSize}`));
    }
    const budget: Budget = { left: this.options.maxBatchAnswerBytes, full: false };
    const answers = await Promise.all(batch.map((request) => this.handleOne(readCall(request), connection, budget)));
    const present = answers.filter((answer): answer is Outgoing => answer !== undefined);
    if (present.length === 0) return undefined;
    const joined = new Outgoing().push('[', 1);
    present.forEach((answer, i) => {
      if (i > 0) joined.push(',', 1);
      joined.append(answer);
    });
    return joined.push(']', 1);
  }

  private refuse(reason: RefusedReason, response: RpcResponse): Outgoing {
    this.metrics.refused(reason);
    return Outgoing.of(JSON.stringify(response));
  }

  /** One call, in its connection's turn, its answer within the size limits; nothing for a notification or a client gone. */
  private async handleOne(read: ReturnType<typeof readCall>, connection: Connection, budget?: Budget): Promise<Outgoing | undefined> {
    if ('response' in read) return this.refuse('malformed', read.response);
    const { call } = read;
    let answer: Outgoing;
    try {
      const result = await this.scheduler.submit(connection.lane, (signal) => {
        if (budget?.full) throw this.batchTooBig();
        return this.run(call, connection, signal);
      });
      if (result.bytes > this.options.maxAnswerBytes) {
        this.metrics.refused('answer_size');
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
    this.metrics.refused('answer_size');
    return new RpcError(RpcCode.responseTooLarge, `Response too large: the batch's answers would exceed ${this.options.maxBatchAnswerBytes} bytes`);
  }

  private errorResponse(call: RpcCall, error: unknown): RpcResponse {
    if (error instanceof RpcError) return failure(call.id, error.code, error.message, error.data);
    if (error instanceof NodeTimeoutError) {
      this.metrics.callTimeouts.inc();
      return failure(call.id, RpcCode.upstreamTimeout, `upstream timeout: ${error.message}`);
    }
    if (error instanceof NoUpstreamError) return failure(call.id, RpcCode.noUpstream, `no upstream: ${error.message}`);
    this.logger.warn({ err: error, method: call.method }, 'upstream call failed');
    return failure(call.id, RpcCode.noUpstream, `no upstream: ${(error as Error)?.message ?? String(error)}`);
  }

  /** Allowed methods with sound params only; subscriptions over WebSocket to the hub, reads to the router. */
  private async run(call: RpcCall, connection: Connection, signal: AbortSignal): Promise<ResultText> {
    const { method, params } = call;
    if (!this.policy.permits(method)) {
      this.metrics.refused('method');
      throw new RpcError(RpcCode.methodNotFound, `Method not found: ${method.slice(0, 64)}`);
    }
    const problem = this.policy.paramsProblem(method, params);
    if (problem) {
      this.metrics.refused('params');
      throw new RpcError(RpcCode.invalidParams, `Invalid params: ${problem}`);
    }
    if (this.sticky.handles(method)) return this.sticky.call(method, params, connection, signal);
    const kind = this.policy.subscription(method);
    if (kind || this.policy.isUnsubscribe(method)) {
      if (!connection.socket) throw new RpcError(RpcCode.methodNotFound, 'Subscriptions need a WebSocket connection');
      if (kind) return resultText(await this.hub.subscribe(method, params, kind, connection));
      return unsubscribeAnswer(this.policy.unsubscribing(method), await this.hub.unsubscribe(connection, String(params[0])));
    }
    if (method === 'archive_v1_finalizedHeight') return resultText(this.archiveHeight.answer());
    return this.router.answer(method, params, signal, connection.client.atNodes, connection.client.key);
  }
}

/** `{"jsonrpc":"2.0","id":…,"result":…}` with the result's text spliced in as it is (a cached one is never parsed or copied). */
function successAnswer(id: RpcId, result: ResultText): Outgoing {
  // A number's text is itself; only a string id needs JSON's escaping, and only it may be more bytes than characters.
  const head = `{"jsonrpc":"2.0","id":${typeof id === 'number' ? String(id) : JSON.stringify(id)},"result":`;
  return new Outgoing()
    .push(head, typeof id === 'string' ? Buffer.byteLength(head) : head.length)
    .push(result.text, result.bytes)
    .push('}', 1);
}
