// How the proxy reaches one node: the few things an upstream needs of a
// connection, so that another kind (HTTP, say) can stand in for a WebSocket.
// Errors keep the node's own JSON-RPC errors apart from transport failures
// and from calls the node did not answer in time.
import { WsProvider } from '@polkadot/rpc-provider';

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
  close(): Promise<void>;
}

/** Opens a transport to `url` whose calls give up after `timeoutMs`. */
export type TransportFactory = (url: string, timeoutMs: number) => UpstreamTransport;

/** A polkadot.js provider error as what it is. */
export function classifyProviderError(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && code !== -1 && code !== 1006) {
    return new UpstreamRpcError(code, String((error as Error).message ?? '').replace(/^-?\d+: /, ''), (error as { data?: unknown }).data);
  }
  const message = (error as Error)?.message ?? String(error);
  if (/No response received from RPC endpoint/i.test(message)) return new UpstreamTimeoutError(message);
  return error instanceof Error ? error : new Error(message);
}

/** A reconnecting WebSocket (polkadot.js), which also resubscribes after a reconnect. */
export class WsTransport implements UpstreamTransport {
  readonly supportsSubscriptions = true;
  private readonly provider: WsProvider;

  constructor(url: string, timeoutMs: number) {
    this.provider = new WsProvider(url, 1000, {}, timeoutMs);
    this.provider.on('error', () => undefined);
  }

  async send(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.provider.send(method, params);
    } catch (error) {
      throw classifyProviderError(error);
    }
  }

  async subscribe(notification: string, method: string, unsubscribeMethod: string, params: unknown[], onValue: (value: unknown) => void): Promise<() => Promise<void>> {
    let id: string | number;
    try {
      id = await this.provider.subscribe(notification, method, params, (error: Error | null, value: unknown) => {
        if (!error) onValue(value);
      });
    } catch (error) {
      throw classifyProviderError(error);
    }
    return async () => {
      await this.provider.unsubscribe(notification, unsubscribeMethod, id).catch(() => undefined);
    };
  }

  get connected(): boolean {
    return this.provider.isConnected;
  }

  get ready(): Promise<unknown> {
    return this.provider.isReady;
  }

  async close(): Promise<void> {
    await this.provider.disconnect().catch(() => undefined);
  }
}

export const webSocketTransport: TransportFactory = (url, timeoutMs) => new WsTransport(url, timeoutMs);
