// Subscriptions over WebSocket. Those about the chain (heads, runtime version,
// storage) are shared: clients asking the same thing ride on one upstream
// subscription, and a late joiner gets the latest value at once. Those about a
// client's own business (its transaction) get an upstream subscription each;
// those that are state at one node (a chainHead follow) stay there
// (stickyRoutes.ts).
// Each is counted against its connection's cap and its client's (ClientBook),
// and none outlives the client that asked, also when it left before the node
// answered.
import { resultText, type ResultText } from './answerCache';
import { isRefusal, type ClientBook } from './clientBook';
import type { Connection } from './connection';
import { LaneClosedError } from './fairScheduler';
import type { PerNodeKind, SubscriptionKind } from './methods';
import { Outgoing } from './outgoing';
import type { ProxyMetrics } from './proxyMetrics';
import type { StickyRoutes } from './stickyRoutes';
import { NoUpstreamError, type UpstreamPool } from './upstreamPool';
import { RpcError } from '../rpc/nodeErrors';
import { RpcCode } from '../rpc/rpcCodes';

/** One upstream subscription fanned out to every client that asked for the same thing. */
interface SharedSubscription {
  clients: Map<string, (result: ResultText) => void>;
  /** Clients waiting for it to open: it is not closed under them. */
  joining: number;
  last?: ResultText;
  ready: Promise<() => Promise<void>>;
}

interface Opened {
  id: string;
  leave: () => Promise<void>;
}

export class SubscriptionHub {
  private readonly shared = new Map<string, SharedSubscription>();
  private nextSubscriptionId = 1;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly book: ClientBook,
    private readonly limits: { maxSubscriptionsPerConnection: number },
    private readonly metrics: ProxyMetrics,
    private readonly sticky: StickyRoutes,
  ) {}

  /** Opens (or joins) the subscription; its id for the client. */
  async subscribe(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<string> {
    const { maxSubscriptionsPerConnection } = this.limits;
    if (connection.subscriptions.size + connection.pendingSubscriptions >= maxSubscriptionsPerConnection) {
      this.metrics.refused('subscriptions');
      throw new RpcError(RpcCode.tooManySubscriptions, `Too many subscriptions on this connection (at most ${maxSubscriptionsPerConnection})`);
    }
    const release = this.book.admit(connection.client, 'subscription');
    if (isRefusal(release)) {
      this.metrics.refused(release.reason);
      throw new RpcError(RpcCode.tooManySubscriptions, release.message);
    }
    let opened: Opened;
    try {
      if (kind.shared) opened = await this.joinShared(method, params, kind, connection);
      else if (kind.perNode) opened = await this.openPerNode(method, params, { ...kind, perNode: kind.perNode }, connection);
      else opened = await this.openPrivate(method, params, kind, connection);
    } catch (error) {
      release();
      throw error;
    }
    let left = false;
    connection.subscriptions.set(opened.id, async () => {
      if (left) return;
      left = true;
      release();
      await opened.leave();
    });
    return opened.id;
  }

  /** Whether the connection held that subscription (it does no longer). */
  async unsubscribe(connection: Connection, subscriptionId: string): Promise<boolean> {
    const leave = connection.subscriptions.get(subscriptionId);
    if (!leave) return false;
    connection.subscriptions.delete(subscriptionId);
    await leave();
    return true;
  }

  /** The connection closed: every subscription of it is left. */
  leaveAll(connection: Connection): void {
    for (const leave of connection.subscriptions.values()) leave().catch(() => undefined);
    connection.subscriptions.clear();
  }

  private async joinShared(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<Opened> {
    const key = `${method}:${JSON.stringify(params)}`;
    const shared = this.shared.get(key) ?? this.openShared(key, method, params, kind);
    const subscriptionId = this.newSubscriptionId();
    shared.joining += 1;
    connection.pendingSubscriptions += 1;
    try {
      await shared.ready;
    } finally {
      shared.joining -= 1;
      connection.pendingSubscriptions -= 1;
    }
    const leave = () => this.leaveShared(key, shared, subscriptionId);
    if (connection.closed) {
      // Gone while the node was answering: nothing may outlive the client that asked.
      await leave();
      throw new LaneClosedError();
    }
    const send = notifier(connection, kind.notification, subscriptionId);
    shared.clients.set(subscriptionId, send);
    // A late joiner gets the latest value at once, as a fresh upstream subscription would send it.
    if (shared.last !== undefined) {
      const last = shared.last;
      setImmediate(() => send(last));
    }
    return { id: subscriptionId, leave };
  }

  private openShared(key: string, method: string, params: unknown[], kind: SubscriptionKind): SharedSubscription {
    const created: SharedSubscription = { clients: new Map(), joining: 0, ready: Promise.resolve(async () => undefined) };
    created.ready = this.openUpstream(method, params, kind, (result) => {
      created.last = result;
      for (const send of created.clients.values()) send(result);
    });
    created.ready.catch(() => this.shared.get(key) === created && this.shared.delete(key));
    this.shared.set(key, created);
    return created;
  }

  private async leaveShared(key: string, shared: SharedSubscription, subscriptionId: string): Promise<void> {
    shared.clients.delete(subscriptionId);
    if (shared.clients.size > 0 || shared.joining > 0) return;
    if (this.shared.get(key) === shared) this.shared.delete(key);
    const close = await shared.ready.catch(() => undefined);
    await close?.();
  }

  private async openPrivate(method: string, params: unknown[], kind: SubscriptionKind, connection: Connection): Promise<Opened> {
    const subscriptionId = this.newSubscriptionId();
    const send = notifier(connection, kind.notification, subscriptionId);
    connection.pendingSubscriptions += 1;
    let close: () => Promise<void>;
    try {
      close = await this.openUpstream(method, params, kind, send);
    } finally {
      connection.pendingSubscriptions -= 1;
    }
    if (connection.closed) {
      await close();
      throw new LaneClosedError();
    }
    return { id: subscriptionId, leave: close };
  }

  /** On one node, for as long as that node's connection lasts: it ends by itself when the node is lost or says it is over. */
  private async openPerNode(method: string, params: unknown[], kind: SubscriptionKind & { perNode: PerNodeKind }, connection: Connection): Promise<Opened> {
    const subscriptionId = this.newSubscriptionId();
    const send = notifier(connection, kind.notification, subscriptionId);
    const finished = () => void this.unsubscribe(connection, subscriptionId).catch(() => undefined);
    connection.pendingSubscriptions += 1;
    let leave: () => Promise<void>;
    try {
      leave = await this.atUpstream(() => this.sticky.open(method, params, kind, connection, subscriptionId, send, finished));
    } finally {
      connection.pendingSubscriptions -= 1;
    }
    if (connection.closed) {
      await leave();
      throw new LaneClosedError();
    }
    return { id: subscriptionId, leave };
  }

  private async openUpstream(method: string, params: unknown[], kind: SubscriptionKind, onResult: (result: ResultText) => void): Promise<() => Promise<void>> {
    return this.atUpstream(async () => {
      const upstream = this.pool.subscriptionUpstream();
      if (!upstream) throw new NoUpstreamError('no node is available, or none has room for another subscription');
      this.metrics.upstreamCalls.inc();
      return upstream.subscribe(kind.notification, method, kind.unsubscribe, params, (value) => onResult(resultText(value)));
    });
  }

  /** Opens a subscription at a node: a failure other than the node's own JSON-RPC error is "no upstream". */
  private async atUpstream<T>(open: () => Promise<T>): Promise<T> {
    if (!this.pool.supportsSubscriptions) {
      throw new RpcError(RpcCode.methodNotFound, 'Subscriptions are not available: the proxy reaches its nodes over HTTP(S) only');
    }
    try {
      return await open();
    } catch (error) {
      throw error instanceof RpcError || error instanceof NoUpstreamError ? error : new NoUpstreamError((error as Error)?.message ?? String(error));
    }
  }

  private newSubscriptionId(): string {
    return `0x${(this.nextSubscriptionId++).toString(16).padStart(16, '0')}`;
  }
}

function notifier(connection: Connection, notification: string, subscriptionId: string): (result: ResultText) => void {
  const head = `{"jsonrpc":"2.0","method":${JSON.stringify(notification)},"params":{"subscription":${JSON.stringify(subscriptionId)},"result":`;
  return (result) => connection.writer?.send(new Outgoing().push(head).push(result.text, result.bytes).push('}}', 2));
}
