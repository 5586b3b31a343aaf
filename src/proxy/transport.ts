// How the proxy reaches one node: the few things an upstream needs of a
// connection, so that another kind (HTTP, say) can stand in for a WebSocket.
// Errors keep the node's own JSON-RPC errors apart from transport failures
// and from calls the node did not answer in time.
import type { HttpRpcCounts, HttpRpcOptions } from '../rpc/httpTransport';
import { RpcErrorReply } from '../rpc/rpcErrorReply';
import { WsRpcClient, WsRpcTimeoutError } from '../rpc/wsRpcClient';

/** The node answered the call with a JSON-RPC error: the call's fault, passed back as it is. */
export class UpstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The node gave no answer in time: the call's failure (it may be an expensive one), not proof the node is gone. */
export class UpstreamTimeoutError extends Error {}

export interface UpstreamTransport {
  /** One call; rejects with UpstreamRpcError, UpstreamTimeoutError or a transport failure. */
  send(method: string, params: unknown[]): Promise<unknown>;
  /** Resolves to the function that ends the subscription. */
  subscribe(notification: string, method: string, unsubscribeMethod: string, params: unknown[], onValue: (value: unknown) => void): Promise<() => Promise<void>>;
  /** Whether calls can be sent now. */
  readonly connected: boolean;
  /** Whether `subscribe` can work here at all (a WebSocket can, HTTP cannot). */
  readonly supportsSubscriptions: boolean;
  /** Resolves once the first connection is open. */
  readonly ready: Promise<unknown>;
  /** Over HTTP(S): the requests sent and what the provider's limits did to them, running totals. */
  readonly httpCounts?: HttpRpcCounts;
  close(): Promise<void>;
}

/** How an HTTP(S) upstream is used: calls per batch POST, POSTs in flight and per second. */
export type HttpUpstreamSettings = Pick<HttpRpcOptions, 'maxBatch' | 'maxInFlight' | 'ratePerSecond'>;

/** Opens a transport to `url` whose calls give up after `timeoutMs`; `http` applies to an HTTP(S) URL. */
export type TransportFactory = (url: string, timeoutMs: number, http?: HttpUpstreamSettings) => UpstreamTransport;

/** A WebSocket client's error as what it is to the proxy. */
function classifyWsError(error: unknown): Error {
  if (error instanceof RpcErrorReply) return new UpstreamRpcError(error.code, error.rpcMessage, error.data);
  if (error instanceof WsRpcTimeoutError) return new UpstreamTimeoutError(error.message);
  return error instanceof Error ? error : new Error(String(error));
}

/** A reconnecting WebSocket (wsRpcClient.ts), which also resubscribes after a reconnect. */
export class WsTransport implements UpstreamTransport {
  readonly supportsSubscriptions = true;
  private readonly client: WsRpcClient;

  constructor(url: string, timeoutMs: number) {
    this.client = new WsRpcClient({ url, timeoutMs });
  }

  async send(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.client.call(method, params);
    } catch (error) {
      throw classifyWsError(error);
    }
  }

  async subscribe(notification: string, method: string, unsubscribeMethod: string, params: unknown[], onValue: (value: unknown) => void): Promise<() => Promise<void>> {
    try {
      return await this.client.subscribe(notification, method, unsubscribeMethod, params, onValue);
    } catch (error) {
      throw classifyWsError(error);
    }
  }

  get connected(): boolean {
    return this.client.isConnected;
  }

  get ready(): Promise<unknown> {
    return this.client.ready;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

export const webSocketTransport: TransportFactory = (url, timeoutMs) => new WsTransport(url, timeoutMs);
