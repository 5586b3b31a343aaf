// The one door to the node: raw JSON-RPC over whichever transport the URL
// names (openTransport.ts: a WebSocket, or HTTP(S) in batches), counted, bounded in
// time, and failing with the errors of nodeErrors.ts, which the HTTP layer
// understands.
import { THROTTLE_CODES } from './httpAnswer';
import { AnswerTooLargeError, NodeError, NodeRpcError, NodeThrottledError, NodeTimeoutError, NodeUnavailableError, RpcError } from './nodeErrors';
import { RpcCode } from './rpcCodes';
import { countCall, countWait, retryRounds, type RequestStats } from './requestStats';
import { openTransport, type TransportOptions } from './openTransport';
import type { CallOptions, RpcTransport } from './transport';

/** How an http(s):// node is used: calls per batch, POSTs in flight and per second, HTTP/2, hooks for metrics. */
export type NodeHttpOptions = NonNullable<TransportOptions['http']>;

export interface NodeClientOptions {
  url: string;
  timeoutMs: number;
  onCall?: (method: string) => void;
  onError?: (method: string) => void;
  http?: NodeHttpOptions;
}

export type Hex = `0x${string}`;

const PROBE_MS = 1000;
/** A probe unanswered this long means a slow node, not a lost one: /health does not wait on it. */
const PROBE_WAIT_MS = 250;

export interface RpcHeader {
  parentHash: Hex;
  number: Hex;
  stateRoot: Hex;
  extrinsicsRoot: Hex;
  digest: { logs: Hex[] };
}

export interface RpcSignedBlock {
  block: { header: RpcHeader; extrinsics: Hex[] };
  justifications: unknown;
}

export interface RpcRuntimeVersion {
  specName: string;
  specVersion: number;
  transactionVersion: number;
  apis: [Hex, number][];
}

export class NodeClient {
  private readonly transport: RpcTransport;
  private readonly onCall?: (method: string) => void;
  private readonly onError?: (method: string) => void;
  private probe?: { at: number; result: Promise<boolean> };
  /** On a request's view of the client (forRequest): where its calls are counted. */
  private readonly stats?: RequestStats;
  /** What the transport is told of each call: over HTTP, a request's calls of one turn share a POST, and its resends are counted. */
  private readonly callOptions: CallOptions = { onRetry: retryRounds(undefined) };

  constructor(options: NodeClientOptions) {
    this.transport = openTransport(options.url, { timeoutMs: options.timeoutMs, http: options.http });
    this.onCall = options.onCall;
    this.onError = options.onError;
  }

  /** Calls sent and not yet answered or given up by the transport. */
  get pendingRequests(): number {
    return this.transport.pending;
  }

  /** Over HTTP there is no connection to lose: every call says for itself whether the node answers. */
  get isConnected(): boolean {
    return this.transport.connected;
  }

  /** Which WebSocket connection is up (a new number after every reconnect; 0 over HTTP). */
  get connection(): number {
    return this.transport.connection;
  }

  /** Whether the transport can hold subscriptions (a WebSocket can, HTTP cannot). */
  get hasSubscriptions(): boolean {
    return this.transport.supportsSubscriptions;
  }

  /**
   * Subscribes to `method`'s notifications; the WebSocket client renews the subscription by
   * itself after a reconnect. Resolves to the function that ends it.
   */
  async subscribe<T>(
    notification: string,
    method: string,
    unsubscribeMethod: string,
    params: unknown[],
    onValue: (value: T) => void,
  ): Promise<() => Promise<void>> {
    if (!this.transport.supportsSubscriptions) throw new Error('subscriptions need a WebSocket node');
    try {
      return await this.transport.subscribe(notification, method, unsubscribeMethod, params, (value) => {
        if (value !== null) onValue(value as T);
      });
    } catch (error) {
      throw classify(error);
    }
  }

  /**
   * This client as one request uses it: the same connection and state (the view
   * inherits them), its calls counted in `stats` and, over HTTP, batched together.
   */
  forRequest(stats: RequestStats): NodeClient {
    return Object.assign(Object.create(this) as NodeClient, { stats, callOptions: { onRetry: retryRounds(stats), group: stats } });
  }

  async ready(): Promise<void> {
    await this.transport.ready;
  }

  async send<T>(method: string, params: unknown[]): Promise<T> {
    return this.sendWith<T>(method, params, this.callOptions);
  }

  /**
   * Hands a signed extrinsic to the node's pool, exactly once: the transport never sends it
   * again (over HTTP a resend after a lost answer could submit it twice; a WebSocket fails its
   * calls when the connection drops) and, alone in its group, it shares a POST with no other call.
   * Resolves to the hash the node gives it.
   */
  submitExtrinsic(extrinsic: Hex): Promise<Hex> {
    return this.sendWith<Hex>('author_submitExtrinsic', [extrinsic], { idempotent: false, group: Symbol('submission') });
  }

  private async sendWith<T>(method: string, params: unknown[], options: CallOptions): Promise<T> {
    const answered = countCall(this.stats, method);
    this.onCall?.(method);
    try {
      // The transport holds the deadline (timeoutMs): over HTTP retries after a throttled answer fit in it,
      // over a WebSocket calls fail at once when the connection drops.
      return await this.transport.send<T>(method, params, options);
    } catch (error) {
      this.onError?.(method);
      throw classify(error);
    } finally {
      answered();
    }
  }

  /**
   * Whether the node answers at all: false only when the node (or the proxy in front
   * of it, which may be connected with no node behind it) says it is unavailable.
   * An answer slower than PROBE_WAIT_MS counts as reachable. Asked at most once per PROBE_MS, so /health
   * polled hard costs the node next to nothing.
   */
  reachable(): Promise<boolean> {
    if (!this.isConnected) return Promise.resolve(false);
    const now = Date.now();
    if (!this.probe || now - this.probe.at >= PROBE_MS) {
      const answer = this.send('chain_getFinalizedHead', []).then(
        () => true,
        (error: unknown) => !(error instanceof NodeUnavailableError),
      );
      const slow = new Promise<boolean>((resolve) => setTimeout(() => resolve(true), PROBE_WAIT_MS).unref());
      this.probe = { at: now, result: Promise.race([answer, slow]) };
    }
    return this.probe.result;
  }

  getBlockHash(number: number): Promise<Hex | null> {
    return this.send('chain_getBlockHash', [number]);
  }

  /** The hashes of several heights in one call (the method takes a list); unchecked: the caller validates. */
  getBlockHashes(numbers: number[]): Promise<unknown> {
    return this.send('chain_getBlockHash', [numbers]);
  }

  /** Awaits `work`, calls another request sent for this one too: a round of this request's, with no call of its own. */
  async waitFor<T>(work: Promise<T>): Promise<T> {
    const answered = countWait(this.stats);
    try {
      return await work;
    } finally {
      answered();
    }
  }

  getBlock(hash: Hex): Promise<RpcSignedBlock | null> {
    return this.send<RpcSignedBlock | null>('chain_getBlock', [hash]).catch(nullIfUnknownBlock);
  }

  getHeader(hash?: Hex): Promise<RpcHeader | null> {
    return this.send<RpcHeader | null>('chain_getHeader', hash ? [hash] : []).catch(nullIfUnknownBlock);
  }

  getFinalizedHead(): Promise<Hex> {
    return this.send('chain_getFinalizedHead', []);
  }

  getStorage(key: Hex, at: Hex): Promise<Hex | null> {
    return this.send('state_getStorage', [key, at]);
  }

  getRuntimeVersion(at: Hex): Promise<RpcRuntimeVersion> {
    return this.send('state_getRuntimeVersion', [at]);
  }

  call(method: string, data: Hex, at: Hex): Promise<Hex> {
    return this.send('state_call', [method, data, at]);
  }

  getMetadata(at: Hex): Promise<Hex> {
    return this.send('state_getMetadata', [at]);
  }

  async disconnect(): Promise<void> {
    await this.transport.close();
  }
}

/**
 * A Substrate node answers null for a block it does not have; chopsticks (which users run
 * as a node too) answers an error naming the block instead. Both mean the same thing.
 */
function nullIfUnknownBlock(error: unknown): null {
  if (error instanceof NodeRpcError && /block \S+ not found|unknown ?block/i.test(error.message)) return null;
  throw error;
}

/** How long a client is told to wait after the node said to slow down without saying how long. */
const THROTTLED_RETRY_MS = 1000;

/** A transport's error as the node client's callers take it: a JSON-RPC error of a proxy in front may be an outage or a timeout. */
function classify(error: unknown): Error {
  if (error instanceof RpcError && !(error instanceof NodeRpcError)) {
    // A proxy in front (ours) with no node behind it: as much an outage as a lost socket.
    if (error.code === RpcCode.noUpstream) return new NodeUnavailableError(error.detail);
    // The proxy's node did not answer this call in time (the node itself is up).
    if (error.code === RpcCode.upstreamTimeout) return new NodeTimeoutError(error.detail);
  }
  // The node (jsonrpsee: "Response is too big", past its --rpc-max-response-size) or a proxy in front
  // would not send an answer this large: the node cannot serve this, not a fault of the call.
  if (error instanceof RpcError && error.code === RpcCode.responseTooLarge) return new AnswerTooLargeError(error.detail);
  // The node (its --rpc-rate-limit: -32999 after holding the call back) or a provider says to slow down: over a
  // WebSocket nothing is sent again, the client is told to come back (HTTP's transport waits and resends itself).
  if (error instanceof RpcError && THROTTLE_CODES.has(error.code)) return new NodeThrottledError(error.detail, THROTTLED_RETRY_MS);
  if (error instanceof RpcError && !(error instanceof NodeRpcError)) return new NodeRpcError(error);
  if (error instanceof NodeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/not connected|disconnected|ECONNREFUSED|socket hang up|fetch failed/i.test(message)) return new NodeUnavailableError(message);
  return error instanceof Error ? error : new Error(message);
}
