// What every HTTP server of fastcar's does before it meets clients: its
// timeouts given at creation, and listening with a deep accept queue.
import type { Server, ServerOptions } from 'node:http';

export interface HttpTimeouts {
  /** A client must have sent its request headers within this. */
  headersTimeoutMs: number;
  /** ... and its whole request within this. */
  requestTimeoutMs: number;
}

/**
 * Node checks these timeouts on a timer made when the server is created (every 30 s
 * unless told otherwise), so they are given here, with a check often enough that a
 * slow client is closed close to its limit rather than up to 30 s after it.
 */
export function timeoutOptions({ headersTimeoutMs, requestTimeoutMs }: HttpTimeouts): ServerOptions {
  return {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
  };
}

/** Listens and resolves to the server's URL (with the port the system chose, for port 0). */
export async function listen(server: Server, host: string, port: number): Promise<string> {
  // Bursts of new connections (a load balancer warming up, a thousand clients at once)
  // must queue in the kernel, not be dropped into SYN retries.
  server.listen({ port, host, backlog: 4096 });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}
