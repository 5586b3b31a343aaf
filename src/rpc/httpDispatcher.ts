// The undici side of an HTTP(S) JSON-RPC endpoint: where POSTs go (path, and
// Basic auth from the URL's user and password) and the connections they go
// on. Over TLS with HTTP/2 offered, one Client (one connection, a stream per
// POST) until the first connection says which protocol the server picked; an
// HTTP/1.1 server then gets a Pool (a kept-alive connection per POST in flight).
import { buildConnector, Client, Pool, type Dispatcher } from 'undici';

export interface HttpDispatcherOptions {
  url: URL;
  /** Connections of the HTTP/1.1 pool, and streams of the HTTP/2 connection. */
  connections: number;
  /** Largest answer read, in bytes. */
  maxResponseBytes: number;
  /** Offer HTTP/2 over TLS (the server picks by ALPN). */
  http2: boolean;
  /** TLS settings of the connection, for a server with a certificate of its own (tests). */
  tls?: { ca?: string | Buffer; rejectUnauthorized?: boolean };
  /** Called once the protocol is known, if it was not at the start: POSTs held back may go. */
  onProtocolKnown(): void;
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export class HttpDispatcher {
  /** The path (and query) every POST goes to. */
  readonly path: string;
  readonly headers: Record<string, string>;
  /** Over HTTP/2 one Client; over HTTP/1.1 a Pool. */
  dispatcher: Dispatcher;
  /** Over TLS with HTTP/2 offered, false until the first connection says which protocol it speaks: one POST at a time till then. */
  protocolKnown: boolean;
  private readonly retired: Dispatcher[] = [];

  constructor(options: HttpDispatcherOptions) {
    const { url } = options;
    this.path = `${url.pathname || '/'}${url.search}`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (url.username || url.password) {
      this.headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    }
    const maxResponseSize = options.maxResponseBytes;
    const openPool = () => {
      const pool = new Pool(url.origin, { connections: options.connections, maxResponseSize, connect: options.tls ? { ...options.tls } : undefined });
      // Errors reach the requests that meet them; the pool itself must not throw unhandled.
      pool.on('connectionError', () => undefined);
      return pool;
    };
    this.protocolKnown = url.protocol === 'http:' || !options.http2;
    if (this.protocolKnown) {
      this.dispatcher = openPool();
      return;
    }
    // The protocol the connection settled on, seen as it is made (its 'connect' event follows at once).
    const connector = buildConnector({ ...options.tls, allowH2: true, timeout: 10_000 });
    let negotiated: string | undefined;
    const client = new Client(url.origin, {
      allowH2: true,
      pipelining: options.connections,
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
      options.onProtocolKnown();
    });
    this.dispatcher = client;
  }

  /** POSTs `body`; resolves to the status, headers and text of the answer. */
  async post(body: string, idempotent: boolean, signal: AbortSignal): Promise<HttpReply> {
    const response = await this.dispatcher.request({ path: this.path, method: 'POST', headers: this.headers, body, idempotent, signal });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }

  async close(): Promise<void> {
    await Promise.all([this.dispatcher, ...this.retired].map((dispatcher) => dispatcher.destroy().catch(() => undefined)));
  }
}
