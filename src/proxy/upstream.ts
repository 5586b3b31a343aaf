// One upstream node of the proxy (the pool that picks between them is
// upstreamPool.ts): reached through transports (the node client's contract,
// src/rpc/transport.ts) with a cap on calls in flight.
//
// A node's health is told by its own probes and by its connection, not by one
// client's calls: a call the node does not answer in time is that call's
// failure (it may be expensive), so it neither backs the node off nor goes to
// another node. Such a call still counts, against the node's cap and against
// its client's (`caller`), until the node answers it or the transport gives it
// up: a client cannot leave work at the node and send as much again.
// Subscriptions spread over several connections to a node, each holding at
// most as many as a node allows on one connection. A subscription that is
// state at the node for its connection (a chainHead follow) keeps its
// connection: calls about it go over that one (nodeSubscription.ts).
import type { HttpRpcCounts } from '../rpc/transport';
import { NodeThrottledError, NodeTimeoutError, NodeUnavailableError, RpcError } from '../rpc/nodeErrors';
import type { ConnectionBound, RpcTransport } from '../rpc/transport';
import { RpcCode } from '../rpc/rpcCodes';
import { backoffMs } from '../rpc/retryPolicy';
import { NodeSubscription, type NodeSubscriptionEvents } from './nodeSubscription';
import { Slots } from '../slots';
import { type HttpUpstreamSettings, type TransportFactory, transportForUrl } from './httpUpstreamTransport';

/** How long the transport waits for an answer after its caller was told it timed out: the node may still be working on it. */
export function giveUpAfter(timeoutMs: number): number {
  return 2 * timeoutMs + 10_000;
}

/** A node backed off after failures in a row waits this long at most. */
const MAX_NODE_BACKOFF_MS = 10_000;

/** jsonrpsee's "server is busy", a Substrate node's --rpc-rate-limit (-32999), Subway's limits, HTTP's 429. */
export const OVERLOADED = new Set([-32009, -32999, -32097, -32098, 429]);
/** Calls that change the node (submitting a transaction, above all): an HTTP upstream's transport must never send one twice. */
const CHANGES_NODE = /^(author_|dev_|transaction_v1_)/;

interface RpcHeaderLike {
  number: string;
}

export interface UpstreamOptions {
  maxConcurrent: number;
  timeoutMs: number;
  /** Subscriptions one connection to the node holds before another is opened (a node allows 1024). */
  maxSubscriptionsPerConnection: number;
  /** Connections to one node, the first (which also carries the calls) included. */
  maxConnections: number;
  /** How to reach a node; by its URL's scheme (WebSocket or HTTP) unless told otherwise. */
  transport?: TransportFactory;
  /** How an http(s):// node is used (batch size, requests in flight and per second); the transport's defaults if unset. */
  http?: HttpUpstreamSettings;
  /** chainHead follows one connection to the node holds (Substrate allows 4); default 4. */
  maxFollowsPerConnection?: number;
}

/** One connection to the node and the subscriptions it holds (or has been promised). */
interface Link {
  transport: RpcTransport;
  subscriptions: number;
  /** Of them, chainHead follows: a node holds only a few per connection. */
  follows: number;
}

/** Substrate's own limit of chainHead follows on one connection. */
const NODE_FOLLOWS_PER_CONNECTION = 4;

export class Upstream {
  private readonly links: Link[];
  private readonly open: TransportFactory;
  private readonly slots: Slots;
  bestNumber = -1;
  finalizedNumber = -1;
  healthy = true;
  calls = 0;
  errors = 0;
  timeouts = 0;
  private backoffUntil = 0;
  /** Failures (errors, "overloaded" answers) in a row, each backing the node off twice as long. */
  private failuresInRow = 0;
  private probing = false;
  /** Its share of clients when they are placed by hashing their address (see rendezvous.ts). */
  weight = 1;

  constructor(
    readonly url: string,
    private readonly options: UpstreamOptions,
  ) {
    this.open = options.transport ?? transportForUrl;
    this.slots = new Slots(options.maxConcurrent);
    this.links = [{ transport: this.connect(), subscriptions: 0, follows: 0 }];
  }

  private connect(): RpcTransport {
    return this.open(this.url, giveUpAfter(this.options.timeoutMs), this.options.http);
  }

  /** Over HTTP(S): requests sent, and the provider's limits at work (undefined over WebSocket). */
  get httpCounts(): HttpRpcCounts | undefined {
    return this.primary.httpCounts;
  }

  /** Calls sent and not yet answered (nor given up by the transport). */
  get outstanding(): number {
    return this.slots.inUse;
  }

  private get primary(): RpcTransport {
    return this.links[0].transport;
  }

  /** Takes calls now: connected, passing its probes, not backing off. */
  get available(): boolean {
    return this.up && Date.now() >= this.backoffUntil;
  }

  /** Connected and passing its own probes: what /health reports, whatever one client's calls do. */
  get up(): boolean {
    return this.connected && this.healthy;
  }

  /** Fewer is better; queued calls count as outstanding. */
  get load(): number {
    return this.slots.inUse + this.slots.queued;
  }

  /** Subscriptions held at this node, over all its connections. */
  get subscriptions(): number {
    return this.links.reduce((sum, link) => sum + link.subscriptions, 0);
  }

  get connections(): number {
    return this.links.length;
  }

  /** Whether the node can hold subscriptions at all (over HTTP it cannot). */
  get supportsSubscriptions(): boolean {
    return this.primary.supportsSubscriptions;
  }

  /** Whether a subscription (a chainHead follow, if `follow`) can still be placed here without going over the node's limits. */
  hasSubscriptionRoom(follow = false): boolean {
    if (!this.supportsSubscriptions) return false;
    return this.links.length < this.options.maxConnections || this.links.some((link) => this.hasRoom(link, follow));
  }

  private hasRoom(link: Link, follow: boolean): boolean {
    if (link.subscriptions >= this.options.maxSubscriptionsPerConnection) return false;
    return !follow || link.follows < (this.options.maxFollowsPerConnection ?? NODE_FOLLOWS_PER_CONNECTION);
  }

  /**
   * One call. It waits for a free slot here and for one of its `caller`'s; `signal`
   * drops it while it waits (its caller left). Past the timeout the caller gets
   * NodeTimeoutError, and both slots stay taken until the node answers or the
   * transport gives up.
   */
  async call(method: string, params: unknown[], signal?: AbortSignal, caller?: Slots, via: RpcTransport = this.primary): Promise<unknown> {
    await caller?.take(signal);
    try {
      await this.slots.take(signal);
    } catch (error) {
      caller?.give();
      throw error;
    }
    this.calls += 1;
    const sent = via.send(method, params, { idempotent: !CHANGES_NODE.test(method) });
    sent
      .catch(() => undefined)
      .finally(() => {
        this.slots.give();
        caller?.give();
      });
    try {
      const late = () => new NodeTimeoutError(`No response received from RPC endpoint in ${this.options.timeoutMs / 1000}s`);
      const result = await withTimeout(sent, this.options.timeoutMs, late);
      this.failuresInRow = 0;
      return result;
    } catch (error) {
      if (error instanceof NodeThrottledError) {
        // The provider's limits kept the call waiting past its deadline: an overloaded node, to be backed off.
        this.backOff();
        throw new RpcError(RpcCode.serverIsBusy, `the provider asked to slow down; retry after ${Math.ceil(error.retryAfterMs / 1000)} s`);
      }
      if (error instanceof RpcError) {
        // The node answered: the call itself is at fault, or the node says it is overloaded.
        if (OVERLOADED.has(error.code)) this.backOff();
        throw error;
      }
      if (error instanceof NodeTimeoutError) {
        // Slow is not gone: the probes say whether the node is.
        this.timeouts += 1;
        throw error;
      }
      this.errors += 1;
      this.backOff();
      throw error;
    }
  }

  private backOff() {
    this.failuresInRow += 1;
    // 250 ms doubling, at most 10 s.
    this.backoffUntil = Date.now() + backoffMs(this.failuresInRow, undefined, undefined, MAX_NODE_BACKOFF_MS);
  }

  /** Whether the connection that carries calls is open. */
  get connected(): boolean {
    return this.primary.connected;
  }

  /** Resolves once the first connection is open. */
  get ready(): Promise<unknown> {
    return this.primary.ready;
  }

  /**
   * Subscribes at this node, on a connection with room (opening another when all
   * are full); a JSON-RPC error from it comes back as RpcError. Resolves
   * to the function that ends the subscription.
   */
  async subscribe(
    notification: string,
    method: string,
    unsubscribeMethod: string,
    params: unknown[],
    onValue: (value: unknown) => void,
  ): Promise<() => Promise<void>> {
    return (await this.subscribeOn(notification, method, unsubscribeMethod, params, onValue)).end;
  }

  /**
   * Subscribes to what the node keeps for one connection (a chainHead follow, a watched
   * transaction): calls about it go over that connection, and `events.lost` is told when it closes.
   */
  async subscribeBound(
    notification: string,
    method: string,
    unsubscribeMethod: string,
    params: unknown[],
    onValue: (value: unknown) => void,
    events: NodeSubscriptionEvents,
  ): Promise<NodeSubscription> {
    let serverId: string | number | undefined;
    let lost = false;
    const bound = {
      opened: (id: string | number) => {
        serverId = id;
      },
      lost: () => {
        lost = true;
        events.lost();
      },
    };
    const { end, link } = await this.subscribeOn(notification, method, unsubscribeMethod, params, onValue, bound, events.follow);
    if (lost || serverId === undefined) {
      await end();
      throw new NodeUnavailableError('the connection to the node closed as the subscription opened');
    }
    const call = (callMethod: string, callParams: unknown[], signal?: AbortSignal, caller?: Slots) =>
      this.call(callMethod, callParams, signal, caller, link.transport);
    return new NodeSubscription(this, serverId, call, end);
  }

  private async subscribeOn(
    notification: string,
    method: string,
    unsubscribeMethod: string,
    params: unknown[],
    onValue: (value: unknown) => void,
    bound?: ConnectionBound,
    follow = false,
  ): Promise<{ end: () => Promise<void>; link: Link }> {
    const link = this.linkWithRoom(follow);
    // Promised now, so that concurrent subscribers count it.
    link.subscriptions += 1;
    if (follow) link.follows += 1;
    let end: () => Promise<void>;
    try {
      if (!link.transport.connected)
        await withTimeout(link.transport.ready, this.options.timeoutMs, () => new Error('the connection to the node did not open'));
      end = await link.transport.subscribe(notification, method, unsubscribeMethod, params, onValue, bound);
    } catch (error) {
      this.release(link, follow);
      throw error;
    }
    let ended = false;
    const endIt = async () => {
      if (ended) return;
      ended = true;
      await end();
      this.release(link, follow);
    };
    return { end: endIt, link };
  }

  private linkWithRoom(follow: boolean): Link {
    const link = this.links.find((candidate) => this.hasRoom(candidate, follow));
    if (link) return link;
    if (this.links.length >= this.options.maxConnections) {
      const max = this.options.maxSubscriptionsPerConnection;
      const what = follow
        ? `chainHead follows (${this.options.maxFollowsPerConnection ?? NODE_FOLLOWS_PER_CONNECTION} a connection)`
        : `subscriptions (${max} each)`;
      throw new RpcError(
        follow ? RpcCode.followLimit : RpcCode.tooManySubscriptions,
        `Too many ${what} on the proxy's ${this.links.length} connections to the node`,
      );
    }
    const opened: Link = { transport: this.connect(), subscriptions: 0, follows: 0 };
    this.links.push(opened);
    return opened;
  }

  /** One subscription fewer on `link`; a connection other than the first closes once it holds none. */
  private release(link: Link, follow: boolean): void {
    link.subscriptions -= 1;
    if (follow) link.follows -= 1;
    if (link.subscriptions > 0 || link === this.links[0]) return;
    const at = this.links.indexOf(link);
    if (at >= 0) this.links.splice(at, 1);
    void link.transport.close();
  }

  /** Counts an answer that was not an answer to the call (the call goes to another node). */
  answeredNonsense(): void {
    this.errors += 1;
  }

  async checkHealth(): Promise<void> {
    if (this.probing) return; // the last probe is still out at the node: no second one beside it
    this.probing = true;
    const probe = (async () => {
      const [best, finalizedHash] = (await Promise.all([this.primary.send('chain_getHeader', []), this.primary.send('chain_getFinalizedHead', [])])) as [
        RpcHeaderLike,
        string,
      ];
      const finalized = (await this.primary.send('chain_getHeader', [finalizedHash])) as RpcHeaderLike;
      return { best: parseInt(best.number, 16), finalized: parseInt(finalized.number, 16) };
    })();
    probe.catch(() => undefined).finally(() => (this.probing = false));
    try {
      const heights = await withTimeout(probe, this.options.timeoutMs, () => new NodeTimeoutError('the health probe was not answered in time'));
      this.bestNumber = heights.best;
      this.finalizedNumber = heights.finalized;
      this.healthy = true;
    } catch {
      this.healthy = false;
    }
  }

  /** Resolves once nothing is in flight or waiting here and no subscription is held, or after `ms` whatever is left. */
  async drained(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.slots.inUse + this.slots.queued + this.subscriptions > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.links.map((link) => link.transport.close()));
  }
}

/** How often a node being let go is checked for work left. */
const DRAIN_POLL_MS = 100;

function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
