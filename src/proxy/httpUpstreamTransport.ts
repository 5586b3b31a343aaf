// An upstream reached over HTTP(S), as a hosted provider offers it: calls go
// through the HTTP JSON-RPC client (src/rpc/httpTransport.ts), which batches a
// turn's calls into one POST, keeps within the provider's limits and retries
// what it throttled until the call's deadline. There is no connection to
// watch, so "connected" means the provider has answered: a light call tells at
// start, and again every second after the provider could not be reached.
// HTTP carries no subscriptions; the pool holds those on WebSocket upstreams.
import { HttpRpcThrottledError, HttpRpcTimeoutError, HttpRpcTransport, HttpRpcUnavailableError, RpcErrorReply, type HttpRpcCounts } from '../rpc/httpTransport';
import { RpcCode } from '../rpc/rpcCodes';
import { UpstreamRpcError, UpstreamTimeoutError, WsTransport, type HttpUpstreamSettings, type TransportFactory, type UpstreamTransport } from './transport';

/** The provider is asked again this often while it cannot be reached. */
const REPROBE_MS = 1000;

/** Subscriptions asked of an HTTP(S) upstream: HTTP has no way to push notifications. */
export class SubscriptionsUnsupportedError extends Error {}

export class HttpUpstreamTransport implements UpstreamTransport {
  readonly supportsSubscriptions = false;
  private readonly http: HttpRpcTransport;
  private answered = false;
  private closed = false;
  private probing = false;
  private probeTimer?: NodeJS.Timeout;
  private markReady!: () => void;
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(
    url: string,
    private readonly timeoutMs: number,
    settings?: HttpUpstreamSettings,
  ) {
    this.http = new HttpRpcTransport({ url, timeoutMs, ...settings });
    this.probe();
  }

  get connected(): boolean {
    return this.answered;
  }

  get httpCounts(): HttpRpcCounts {
    return this.http.counts;
  }

  async send(method: string, params: unknown[]): Promise<unknown> {
    try {
      const result = await this.http.send(method, params, { deadline: Date.now() + this.timeoutMs });
      this.heard();
      return result;
    } catch (error) {
      throw this.classify(error);
    }
  }

  async subscribe(notification: string): Promise<() => Promise<void>> {
    throw new SubscriptionsUnsupportedError(`${notification} needs a WebSocket upstream: HTTP(S) carries no subscriptions`);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.probeTimer);
    await this.http.close();
  }

  /** Any answer of the provider's, an error or a "slow down" included, shows it can be reached. */
  private heard() {
    this.answered = true;
    this.markReady();
  }

  private classify(error: unknown): Error {
    if (error instanceof RpcErrorReply) {
      this.heard();
      return new UpstreamRpcError(error.code, error.rpcMessage, error.data);
    }
    if (error instanceof HttpRpcThrottledError) {
      this.heard();
      // The provider's limits kept the call waiting past its deadline: an overloaded node, to be backed off.
      return new UpstreamRpcError(RpcCode.serverIsBusy, `the provider asked to slow down; retry after ${Math.ceil(error.retryAfterMs / 1000)} s`);
    }
    if (error instanceof HttpRpcTimeoutError) return new UpstreamTimeoutError(error.message);
    if (error instanceof HttpRpcUnavailableError && !this.closed) {
      // Gone as far as we can tell: down until it answers again.
      this.answered = false;
      this.probe();
    }
    return error instanceof Error ? error : new Error(String(error));
  }

  /** Asks a light question until the provider answers it (or the transport is closed). */
  private probe() {
    if (this.probing || this.closed) return;
    this.probing = true;
    const attempt = () => {
      if (this.closed) return;
      this.http.send('chain_getFinalizedHead', [], { deadline: Date.now() + this.timeoutMs }).then(
        () => this.endProbe(),
        (error: unknown) => {
          if (error instanceof RpcErrorReply || error instanceof HttpRpcThrottledError) return this.endProbe();
          this.probeTimer = setTimeout(attempt, REPROBE_MS);
          this.probeTimer.unref();
        },
      );
    };
    attempt();
  }

  private endProbe() {
    this.probing = false;
    this.heard();
  }
}

/** A WebSocket for ws(s):// URLs, HTTP(S) for http(s):// ones. */
export const transportForUrl: TransportFactory = (url, timeoutMs, http) =>
  /^https?:\/\//i.test(url) ? new HttpUpstreamTransport(url, timeoutMs, http) : new WsTransport(url, timeoutMs);
