// The WebSockets open now, and how they are kept in check: one whose client
// does not read its answers, or sends faster than its calls start, is not read
// until it catches up; one that does not answer a ping, takes none of its
// answers, or idles, is closed.
import { randomBytes } from 'node:crypto';

import type { Connection } from './connection';
import type { ProxyMetrics } from './proxyMetrics';

export interface SocketLimits {
  maxUnsentBytesPerConnection: number;
  maxQueuedPerConnection: number;
  sendTimeoutMs: number;
  idleTimeoutMs: number;
}

export class OpenSockets {
  private readonly open = new Set<Connection>();

  constructor(
    private readonly limits: SocketLimits,
    private readonly metrics: ProxyMetrics,
  ) {}

  add(connection: Connection): void {
    this.open.add(connection);
  }

  delete(connection: Connection): void {
    this.open.delete(connection);
  }

  /** Answer bytes waiting to go out, over all of them. */
  get unsentBytes(): number {
    let sum = 0;
    for (const connection of this.open) sum += connection.writer?.pending ?? 0;
    return sum;
  }

  /**
   * Holds a WebSocket whose client does not read its answers: while more than the
   * bound waits to go out, none of its calls start and it is not read; it is also
   * not read while too many of its calls wait to start.
   */
  updateFlow(connection: Connection): void {
    const { socket, writer, lane } = connection;
    if (!socket || !writer || connection.closed) return;
    const { maxUnsentBytesPerConnection, maxQueuedPerConnection } = this.limits;
    const over = writer.pending > maxUnsentBytesPerConnection;
    lane.held = over;
    if (!connection.paused && (over || lane.queued >= maxQueuedPerConnection)) {
      connection.paused = true;
      socket.pause();
    } else if (connection.paused && !over && lane.queued < maxQueuedPerConnection / 2) {
      connection.paused = false;
      socket.resume();
    }
  }

  /** A ping to every WebSocket; one that has not answered the last ping with its payload is gone. */
  heartbeat(): void {
    for (const connection of this.open) {
      const socket = connection.socket!;
      // Not read for now (its calls or answers back up), so its pong cannot be read either:
      // the send timeout watches it instead.
      if (connection.paused) continue;
      if (connection.awaitedPong) {
        this.metrics.closed('ping');
        socket.terminate();
        continue;
      }
      connection.awaitedPong = randomBytes(8);
      socket.ping(connection.awaitedPong);
    }
  }

  /** Closes WebSockets that do not take their answers, or that idle. */
  sweep(now = Date.now()): void {
    for (const connection of this.open) {
      const socket = connection.socket!;
      if (connection.writer!.stalledFor(now) > this.limits.sendTimeoutMs) {
        this.metrics.closed('send_timeout');
        socket.terminate();
      } else if (now - connection.lastSeen > this.limits.idleTimeoutMs && holdsNothing(connection)) {
        this.metrics.closed('idle');
        socket.close(1000, 'idle');
      }
    }
  }
}

function holdsNothing(connection: Connection): boolean {
  const { lane, writer } = connection;
  return connection.subscriptions.size === 0 && connection.pendingSubscriptions === 0 && lane.inFlight === 0 && lane.queued === 0 && writer!.pending === 0;
}
