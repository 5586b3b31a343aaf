// What each client address holds of the proxy, and its caps on it. A
// connection, an HTTP request or a subscription is admitted here or refused with
// the reason and message the client is told; an admitted one is given back with
// the release() it came with, which may be called more than once (a socket's
// close and a failed open can both end it) and counts once. The counters change
// nowhere else, so a client that holds nothing is one this book may forget.
import type { ClientGroup } from './fairScheduler';
import type { Slots } from '../slots';

/** One client address and what it holds of the proxy. */
export interface Client {
  readonly key: string;
  /** Its open connections (TCP, or WebSockets when behind balancers). */
  readonly connections: number;
  /** Its HTTP requests being answered. */
  readonly requests: number;
  /** Its subscriptions, open or being opened, over all its connections. */
  readonly subscriptions: number;
  /** Its calls being answered, over all its connections (the scheduler's count). */
  readonly group: ClientGroup;
  /** Its calls at the nodes, until the node is done with them (also after the client left). */
  readonly atNodes: Slots;
}

/** What one client address may hold at once at the proxy (not its rate, which src/limits counts). */
export interface ClientCaps {
  maxConnectionsPerClient: number;
  /** HTTP requests of one address in progress at once. */
  maxRequestsPerClient: number;
  maxSubscriptionsPerClient: number;
  /** Behind balancers a client's HTTP requests come over the balancer's connections: each stands for a connection of its own. */
  requestsAreConnections: boolean;
}

export type Holding = 'connection' | 'request' | 'subscription';

export interface Refusal {
  /** The label of `proxy_refused_calls_total`. */
  reason: 'connections' | 'requests' | 'subscriptions';
  message: string;
}

export type Release = () => void;

type Counts = { -readonly [K in 'connections' | 'requests' | 'subscriptions']: number };
type Entry = Omit<Client, keyof Counts> & Counts;

const COUNTER: Record<Holding, keyof Counts> = { connection: 'connections', request: 'requests', subscription: 'subscriptions' };

export class ClientBook {
  private readonly clients = new Map<string, Entry>();

  constructor(
    private readonly caps: ClientCaps,
    private readonly newGroup: () => ClientGroup,
    private readonly newSlots: () => Slots,
  ) {}

  client(key: string): Client {
    let client = this.clients.get(key);
    if (!client) {
      client = { key, connections: 0, requests: 0, subscriptions: 0, group: this.newGroup(), atNodes: this.newSlots() };
      this.clients.set(key, client);
    }
    return client;
  }

  /** One more connection, request or subscription for the client, unless it holds its share already. */
  admit(client: Client, holding: Holding): Release | Refusal {
    // The client's own record, as this book made it: its counts change here and nowhere else.
    const entry = client as Entry;
    const refusal = this.refusal(entry, holding);
    if (refusal) return refusal;
    const counter = COUNTER[holding];
    entry[counter] += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry[counter] -= 1;
    };
  }

  private refusal(entry: Entry, holding: Holding): Refusal | undefined {
    const { maxConnectionsPerClient, maxRequestsPerClient, maxSubscriptionsPerClient, requestsAreConnections } = this.caps;
    // Built only when refused: admit runs for every HTTP request.
    const tooManyConnections = (): Refusal => ({
      reason: 'connections',
      message: `Too many connections from this address (at most ${maxConnectionsPerClient})`,
    });
    switch (holding) {
      case 'connection':
        return entry.connections >= maxConnectionsPerClient ? tooManyConnections() : undefined;
      case 'request':
        if (entry.requests >= maxRequestsPerClient) {
          return { reason: 'requests', message: `Too many requests in progress from this address (at most ${maxRequestsPerClient})` };
        }
        return requestsAreConnections && entry.requests >= maxConnectionsPerClient ? tooManyConnections() : undefined;
      case 'subscription':
        if (entry.subscriptions < maxSubscriptionsPerClient) return undefined;
        return { reason: 'subscriptions', message: `Too many subscriptions from this address (at most ${maxSubscriptionsPerClient})` };
    }
  }

  /** Forgets clients that hold nothing (their calls at the node included). */
  prune(): void {
    for (const [key, client] of this.clients) {
      const idle = client.connections === 0 && client.requests === 0 && client.subscriptions === 0;
      if (idle && client.group.inFlight === 0 && client.atNodes.inUse === 0 && client.atNodes.queued === 0) this.clients.delete(key);
    }
  }

  get size(): number {
    return this.clients.size;
  }
}

export function isRefusal(admitted: Release | Refusal): admitted is Refusal {
  return typeof admitted !== 'function';
}
