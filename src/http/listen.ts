// What every HTTP server of fastcar's does before it meets clients: its
// timeouts given at creation, and listening with a deep accept queue; and how it
// stops (closeServer).
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

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

/** The open connections of each server that listen() started, for closeServer(). */
const connectionsOf = new WeakMap<Server, Set<Socket>>();

/** Keeps `server`'s open connections for closeServer() (listen() does; a server listening otherwise calls it). */
export function trackConnections(server: Server): void {
  const connections = new Set<Socket>();
  connectionsOf.set(server, connections);
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
}

/** Listens and resolves to the server's URL (with the port the system chose, for port 0). */
export async function listen(server: Server, host: string, port: number): Promise<string> {
  trackConnections(server);
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

/**
 * Stops taking connections and resolves once every one is closed: requests in flight are
 * answered first (bounded by the request timeout). Node closes kept-alive connections between
 * requests itself, but not one a client opened and never sent a byte on (a pool's spare, an
 * aborted request's): that one would hold the close for the whole request timeout (60 s).
 */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const socket of connectionsOf.get(server) ?? []) if (socket.bytesRead === 0) socket.destroy();
  await closed;
}
