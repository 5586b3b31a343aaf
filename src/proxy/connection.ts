// One client connection: a WebSocket, or one HTTP request (its calls end with
// it). Its turn at the scheduler is its lane; what it subscribed to is left when
// it closes.
import type { WebSocket } from 'ws';

import type { Client } from './clientBook';
import type { Lane } from './fairScheduler';
import type { WebSocketWriter } from './outgoing';

export interface Connection {
  client: Client;
  lane: Lane;
  socket?: WebSocket;
  writer?: WebSocketWriter;
  /** client subscription id -> how to leave it */
  subscriptions: Map<string, () => Promise<void>>;
  pendingSubscriptions: number;
  closed: boolean;
  /** When the client last sent a message. */
  lastSeen: number;
  /** The payload of the ping whose pong is awaited: only that pong counts. */
  awaitedPong?: Buffer;
  /** Not read: too much waits to start or to be sent. */
  paused: boolean;
}

export function openConnection(client: Client, lane: Lane, socket?: WebSocket): Connection {
  return { client, lane, socket, subscriptions: new Map(), pendingSubscriptions: 0, closed: false, lastSeen: Date.now(), paused: false };
}

/** Its waiting calls are dropped and its running ones no longer waited on. */
export function closeConnection(connection: Connection): void {
  connection.closed = true;
  connection.lane.close();
}
