// Sticky routing: what a node keeps for one connection to it stays on that
// node. A chainHead follow, a watched transaction or an archive storage query
// is opened on one node (by the balancing mode, for the client's address) and
// bound to the proxy's connection to it; every call that names it (the
// chainHead_v1_* calls, by their first parameter) goes over that connection,
// with the node's own id put in place of the client's. When that connection
// closes, the client gets the spec's last event (`stop` for a follow, `dropped`
// for a watched transaction, ...), never answers from another node. A call
// naming a subscription the client does not hold is answered as the spec says
// for an invalid one, without a node. A transaction_v1_broadcast's operation
// id is kept with its node for its transaction_v1_stop.
import { resultText, type ResultText } from './answerCache';
import type { Connection } from './connection';
import { FOLLOW_CALLS, type PerNodeKind, type SubscriptionKind } from './methods';
import type { NodeSubscription } from './nodeSubscription';
import type { ProxyMetrics } from './proxyMetrics';
import { NoUpstreamError, type UpstreamPool } from './upstreamPool';
import type { Upstream } from './upstream';
import { RpcError } from '../rpc/nodeErrors';
import { RpcCode } from '../rpc/rpcCodes';

/** One per-node subscription of a client connection. */
interface Route {
  method: string;
  node: NodeSubscription;
  /** Its node's connection closed: calls naming it are answered as for an unknown one. */
  gone: boolean;
}

/** transaction_v1_broadcast operations remembered for their stop: the oldest are forgotten past this many. */
const MAX_BROADCASTS = 16_384;

export class StickyRoutes {
  private readonly routes = new WeakMap<Connection, Map<string, Route>>();
  /** `client address, operation id` -> the node broadcasting it. */
  private readonly broadcasts = new Map<string, Upstream>();

  constructor(
    private readonly pool: UpstreamPool,
    private readonly metrics: ProxyMetrics,
  ) {}

  /** Whether the call names per-node state, or makes some that a later call names. */
  handles(method: string): boolean {
    return FOLLOW_CALLS.has(method) || method === 'transaction_v1_broadcast' || method === 'transaction_v1_stop';
  }

  /**
   * Opens a per-node subscription for `connection` under the client's `id`; `send` hands a
   * notification to the client and `finished` is called once the subscription has ended by
   * itself (its last event, or its node lost). Resolves to how the client leaves it.
   */
  async open(
    method: string,
    params: unknown[],
    kind: SubscriptionKind & { perNode: PerNodeKind },
    connection: Connection,
    id: string,
    send: (result: ResultText) => void,
    finished: () => void,
  ): Promise<() => Promise<void>> {
    const { perNode } = kind;
    const upstream = this.pool.subscriptionUpstream(connection.client.key, perNode.follow);
    if (!upstream) {
      // Nodes up but every one holding all the follows the proxy may put on it: the spec's limit error.
      if (perNode.follow && this.pool.up) throw new RpcError(RpcCode.followLimit, 'Too many chainHead follows: every node holds as many as the proxy may open');
      throw new NoUpstreamError('no node is available, or none has room for another subscription');
    }
    // The client learns its id from the answer to this call: what the node sends first waits for it.
    let waiting: ResultText[] | undefined = [];
    let over = false;
    const deliver = (value: unknown) => {
      if (over) return;
      const text = resultText(value);
      if (waiting) waiting.push(text);
      else send(text);
      if (perNode.isLast(value)) {
        over = true;
        if (!waiting) finished();
      }
    };
    const lost = () => {
      const route = this.routes.get(connection)?.get(id);
      if (route) route.gone = true;
      if (!over) this.metrics.stickyLost.inc();
      deliver(perNode.lost);
    };
    this.metrics.upstreamCalls.inc();
    const node = await upstream.subscribeBound(kind.notification, method, kind.unsubscribe, params, deliver, { lost, follow: perNode.follow });
    let routes = this.routes.get(connection);
    if (!routes) {
      routes = new Map();
      this.routes.set(connection, routes);
    }
    routes.set(id, { method, node, gone: false });
    setImmediate(() => {
      const early = waiting ?? [];
      waiting = undefined;
      for (const text of early) send(text);
      if (over) finished();
    });
    return async () => {
      over = true;
      this.routes.get(connection)?.delete(id);
      await node.end();
    };
  }

  /** A call that names per-node state (or makes some): to the node holding it, or answered here. */
  async call(method: string, params: unknown[], connection: Connection, signal: AbortSignal): Promise<ResultText> {
    const caller = connection.client.atNodes;
    if (method === 'transaction_v1_broadcast') return this.broadcast(params, connection, signal);
    if (method === 'transaction_v1_stop') return this.stopBroadcast(params, connection, signal);
    const unknown = resultText(FOLLOW_CALLS.get(method));
    const route = this.routes.get(connection)?.get(String(params[0]));
    if (!route || route.gone || route.method !== 'chainHead_v1_follow') return unknown;
    this.metrics.upstreamCalls.inc();
    try {
      return resultText(await route.node.call(method, [route.node.serverId, ...params.slice(1)], signal, caller));
    } catch (error) {
      // The node went while it had the call: the follow is stale now, and its client told `stop`.
      if (route.gone) return unknown;
      throw error;
    }
  }

  private async broadcast(params: unknown[], connection: Connection, signal: AbortSignal): Promise<ResultText> {
    this.metrics.upstreamCalls.inc();
    const { result, upstream } = await this.pool.call('transaction_v1_broadcast', params, {
      retry: false,
      judge: () => 'serve',
      signal,
      caller: connection.client.atNodes,
      client: connection.client.key,
    });
    if (typeof result === 'string') {
      this.broadcasts.set(broadcastKey(connection, result), upstream);
      if (this.broadcasts.size > MAX_BROADCASTS) this.broadcasts.delete(this.broadcasts.keys().next().value!);
    }
    return resultText(result);
  }

  private async stopBroadcast(params: unknown[], connection: Connection, signal: AbortSignal): Promise<ResultText> {
    const key = broadcastKey(connection, String(params[0]));
    const upstream = this.broadcasts.get(key);
    this.metrics.upstreamCalls.inc();
    const caller = connection.client.atNodes;
    // Not remembered (another proxy's, or forgotten): the nodes are asked as for any call.
    if (!upstream) {
      const options = { retry: false, judge: () => 'serve' as const, signal, caller, client: connection.client.key };
      return resultText((await this.pool.call('transaction_v1_stop', params, options)).result);
    }
    const result = await upstream.call('transaction_v1_stop', params, signal, caller);
    this.broadcasts.delete(key);
    return resultText(result);
  }
}

/** The answer to an unsubscribe call; `held`: whether the client held that subscription. */
export function unsubscribeAnswer(kind: SubscriptionKind | undefined, held: boolean): ResultText {
  const perNode = kind?.perNode;
  if (!perNode) return resultText(held);
  if (!held && perNode.unknownError) throw new RpcError(RpcCode.invalidParams, perNode.unknownError);
  return resultText(perNode.unsubscribed(held));
}

function broadcastKey(connection: Connection, operationId: string): string {
  return `${connection.client.key}\u0000${operationId}`;
}
