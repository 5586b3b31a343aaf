// The one contract for reaching a node, whatever carries the calls: a
// reconnecting WebSocket (wsRpcClient.ts) or batched HTTP(S) POSTs
// (httpTransport.ts). Both fail calls only with the errors of nodeErrors.ts.
// The node client and the proxy's upstreams stand on this; openTransport.ts
// picks the transport from the URL. Nothing here imports the rest of rpc/, so
// the transports can implement it without an import circle.

/** Over HTTP(S): the requests sent and what the provider's limits did to them, running totals. */
export interface HttpRpcCounts {
  requests: number;
  calls: number;
  throttled: number;
  retries: number;
  batchesRefused: number;
}

/** What a caller may tell the transport about one call; a transport uses what applies to it. */
export interface CallOptions {
  /** Whether the call may be sent again after a failed attempt (reads may; submissions may not). Default true. */
  idempotent?: boolean;
  /** Called each time the call is sent again; calls sent again together share `round`. */
  onRetry?(round: number): void;
  /**
   * Calls of one turn share a POST only with calls of the same group (say, the same client
   * request): a batch is answered when its slowest call is, so unrelated work is not made to
   * wait on each other. Default: one group.
   */
  group?: unknown;
}

/**
 * A subscription that is state the node keeps for the one connection it was opened on (a
 * chainHead follow, a watched transaction): calls about it must use that connection, and a
 * new connection cannot bring it back, so it is never renewed after a reconnect.
 */
export interface ConnectionBound {
  /** The node's id for it, told before any notification of it is handed on. */
  opened(serverId: string | number): void;
  /** Its connection closed: the node has forgotten it. */
  lost(): void;
}

export interface RpcTransport {
  /**
   * One call, answered within the transport's timeout; rejects with RpcError (the node's
   * JSON-RPC error), NodeTimeoutError or NodeUnavailableError (NodeThrottledError included).
   */
  send<T = unknown>(method: string, params: unknown[], options?: CallOptions): Promise<T>;
  /**
   * Subscribes to `method`'s notifications (renewed after a reconnect unless `bound`); resolves
   * to the function that ends it.
   */
  subscribe(
    notification: string,
    method: string,
    unsubscribeMethod: string,
    params: unknown[],
    onValue: (value: unknown) => void,
    bound?: ConnectionBound,
  ): Promise<() => Promise<void>>;
  /** Whether calls can be sent now (over HTTP, with no connection to lose: always). */
  readonly connected: boolean;
  /** Which connection is up: a new number after every reconnect; 0 where there is no connection to lose (HTTP). */
  readonly connection: number;
  /** Whether `subscribe` can work here at all (a WebSocket can, HTTP cannot). */
  readonly supportsSubscriptions: boolean;
  /** Resolves once the first connection is open. */
  readonly ready: Promise<unknown>;
  /** Calls sent and not yet answered or given up. */
  readonly pending: number;
  /** Over HTTP(S): the requests sent and what the provider's limits did to them, running totals. */
  readonly httpCounts?: HttpRpcCounts;
  /** Fails the calls waiting and closes the connection; no call is sent after. */
  close(): Promise<void>;
}

/** Subscriptions asked of an HTTP(S) transport: HTTP has no way to push notifications. */
export class SubscriptionsUnsupportedError extends Error {}
