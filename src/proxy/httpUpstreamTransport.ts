// An upstream reached over HTTP(S), as a hosted provider offers it: calls go
// through the HTTP JSON-RPC transport (src/rpc/httpTransport.ts), which batches
// a turn's calls into one POST, keeps within the provider's limits and retries
// what it throttled until the call's deadline. There is no connection to
// watch, so "connected" means the provider has answered: a light call tells at
// start, and again every second after the provider could not be reached.
// HTTP carries no subscriptions; the pool holds those on WebSocket upstreams.
import { type HttpRpcOptions, HttpRpcTransport } from '../rpc/httpTransport';
import { NodeThrottledError, NodeUnavailableError, RpcError } from '../rpc/nodeErrors';
import { openTransport } from '../rpc/openTransport';
import { SubscriptionsUnsupportedError, type CallOptions, type RpcTransport } from '../rpc/transport';

/** How an HTTP(S) upstream is used: calls per batch POST, POSTs in flight and per second. */
export type HttpUpstreamSettings = Pick<HttpRpcOptions, 'maxBatch' | 'maxInFlight' | 'ratePerSecond'>;

/** Opens a transport to `url` whose calls give up after `timeoutMs`; `http` applies to an HTTP(S) URL. */
export type TransportFactory = (url: string, timeoutMs: number, http?: HttpUpstreamSettings) => RpcTransport;

/** The provider is asked again this often while it cannot be reached. */
const REPROBE_MS = 1000;

/** Whether the provider answered at all: the node's own error and a "slow down" are answers too. */
function answeredBy(error: unknown): boolean {
  return error instanceof RpcError || error instanceof NodeThrottledError;
}

export class HttpUpstreamTransport implements RpcTransport {
  readonly supportsSubscriptions = false;
  readonly connection = 0;
  private answered = false;
  private closed = false;
  private probing = false;
  private probeTimer?: NodeJS.Timeout;
  private markReady!: () => void;
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(private readonly http: HttpRpcTransport) {
    this.probe();
  }

  get connected(): boolean {
    return this.answered;
  }

  get pending(): number {
    return this.http.pending;
  }

  get httpCounts() {
    return this.http.counts;
  }

  async send<T = unknown>(method: string, params: unknown[], options?: CallOptions): Promise<T> {
    try {
      const result = await this.http.send<T>(method, params, options);
      this.heard();
      return result;
    } catch (error) {
      if (answeredBy(error)) this.heard();
      else if (error instanceof NodeUnavailableError && !this.closed) {
        // Gone as far as we can tell: down until it answers again.
        this.answered = false;
        this.probe();
      }
      throw error;
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

  /** Asks a light question until the provider answers it (or the transport is closed). */
  private probe() {
    if (this.probing || this.closed) return;
    this.probing = true;
    const attempt = () => {
      if (this.closed) return;
      this.http.send('chain_getFinalizedHead', []).then(
        () => this.endProbe(),
        (error: unknown) => {
          if (answeredBy(error)) return this.endProbe();
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

/**
 * The transport src/rpc/openTransport.ts picks for the URL (a WebSocket for ws(s)://, HTTP(S)
 * for http(s)://); an HTTP one is watched by its answers, having no connection to watch.
 */
export const transportForUrl: TransportFactory = (url, timeoutMs, http) => {
  const transport = openTransport(url, { timeoutMs, http });
  return transport instanceof HttpRpcTransport ? new HttpUpstreamTransport(transport) : transport;
};
