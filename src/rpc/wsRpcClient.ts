// JSON-RPC 2.0 to one node over a WebSocket that reconnects by itself, kept
// lean because every node call of every request passes through it:
//  - the calls issued in one turn of the event loop leave in one socket write
//    (the socket is corked at the first and uncorked on the next tick), each
//    still a frame of its own, so that a slow answer holds up no other;
//  - one JSON.parse per message, answers found by integer id in a Map;
//  - while answers are still due, each message read is acknowledged at once
//    (acknowledge(): a node's server holds its next answer until then);
//  - no timer per call: one timer, armed for the oldest call's deadline, gives
//    up the calls that are past theirs;
//  - subscriptions are routed by the node's subscription id and taken out again
//    after a reconnect (the node forgets them with the connection).
// The node is a stranger too: messages are bounded in size, anything that is
// not an answer to a call in flight or a notification of a live subscription
// is dropped (counted, never thrown), and calls are refused while the node
// leaves too many of them unread. It is an RpcTransport (transport.ts): calls
// fail with the errors of nodeErrors.ts only.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocket, type RawData } from 'ws';

import { NodeTimeoutError, NodeUnavailableError, RpcError } from './nodeErrors';
import type { ConnectionBound, RpcTransport } from './transport';

export interface WsRpcOptions {
  url: string;
  /** How long a call may wait for its answer, in ms. */
  timeoutMs: number;
  /** Pause between attempts to connect, in ms. Default 1000. */
  reconnectMs?: number;
  /** Largest message taken from the node, in bytes (a larger one closes the connection). Default 256 MiB. */
  maxPayload?: number;
}

export type SubscriptionId = string | number;

const DEFAULT_RECONNECT_MS = 1000;
const DEFAULT_MAX_PAYLOAD = 256 * 1024 * 1024;
/** A node that accepts the TCP connection but never answers the upgrade is tried again after this. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Bytes of calls the node has not read yet past which new calls are refused: it is not keeping up. */
const MAX_UNSENT_BYTES = 16 * 1024 * 1024;
/** Notifications for a subscription whose answer is not in yet, kept at most (bytes): a few, briefly. */
const MAX_EARLY_BYTES = 8 * 1024 * 1024;
/** The deadline timer fires at most this often while calls are timing out one after another. */
const SWEEP_MIN_MS = 50;
/** Ids stay small integers (V8 keeps them unboxed) and wrap round long before they could repeat in flight. */
const MAX_ID = 0x3fffffff;
/** After a reconnect, subscriptions tied to a submission (a transaction's progress) are not renewed: that submission is not made again. */
const NOT_RENEWED = /^author_/;

class Subscription {
  /** The node's id for it on the current connection; undefined while it has none. */
  serverId: SubscriptionId | undefined = undefined;
  ended = false;

  constructor(
    readonly notification: string,
    readonly method: string,
    readonly unsubscribeMethod: string,
    readonly params: unknown[],
    readonly onValue: (value: unknown) => void,
    /** Tied to the connection it was opened on: told of its id and of that connection's end, never renewed. */
    readonly bound: ConnectionBound | undefined,
  ) {}
}

class PendingCall {
  resolve!: (value: unknown) => void;
  reject!: (error: Error) => void;

  constructor(
    readonly method: string,
    readonly deadline: number,
    /** Set on a call that opens (or renews) this subscription. */
    readonly subscription: Subscription | undefined,
  ) {}
}

interface JsonRpcMessage {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown } | null;
  method?: unknown;
  params?: { subscription?: unknown; result?: unknown; error?: unknown } | null;
}

export class WsRpcClient implements RpcTransport {
  readonly supportsSubscriptions = true;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly reconnectMs: number;
  private readonly maxPayload: number;

  private socket?: WebSocket;
  /** The TCP (or TLS) socket under `socket`, once open: corked while a turn's calls are written. */
  private tcp?: Socket;
  private open = false;
  /** Connections opened so far: what a subscriber heard on an earlier one may have stopped coming. */
  private opens = 0;
  private closed = false;
  private reconnectTimer?: NodeJS.Timeout;

  private nextId = 1;
  /** Calls in flight by id; insertion order is deadline order (one timeout for all). */
  private readonly inFlight = new Map<number, PendingCall>();
  private deadlineTimer?: NodeJS.Timeout;

  /** The socket corked for this turn's calls, until the next tick. */
  private corked?: Socket;

  /** Subscriptions the caller holds, renewed after each reconnect. */
  private readonly subscriptions = new Set<Subscription>();
  private readonly byServerId = new Map<SubscriptionId, Subscription>();
  /** Calls in flight that open a subscription: while there are any, unknown notifications are kept a little. */
  private subscribing = 0;
  private readonly early = new Map<SubscriptionId, { message: JsonRpcMessage; bytes: number }[]>();
  private earlyBytes = 0;

  private markReady!: () => void;
  /** Resolves once the first connection is open. */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  /** Messages dropped: not JSON, not an answer to a call in flight, not for a live subscription. */
  dropped = 0;

  constructor(options: WsRpcOptions) {
    if (!/^wss?:\/\//i.test(options.url)) throw new Error('a WebSocket JSON-RPC endpoint must be ws:// or wss://');
    this.url = options.url;
    this.timeoutMs = options.timeoutMs;
    this.reconnectMs = options.reconnectMs ?? DEFAULT_RECONNECT_MS;
    this.maxPayload = options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
    this.connect();
  }

  /** Which connection this is (1 for the first): a new one after every reconnect. */
  get connection(): number {
    return this.opens;
  }

  get connected(): boolean {
    return this.open;
  }

  /** Calls sent and neither answered nor given up yet. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** One call; rejects with RpcError (the node's error), NodeTimeoutError or NodeUnavailableError. */
  send<T = unknown>(method: string, params: unknown[]): Promise<T> {
    return this.request(method, params, undefined) as Promise<T>;
  }

  /**
   * Subscribes to `method`; `onValue` gets each notification's result. The subscription is
   * taken out again after each reconnect until the returned function ends it, unless it is
   * `bound` to its connection: then it ends with that connection, and `bound.lost` is told.
   */
  async subscribe(
    notification: string,
    method: string,
    unsubscribeMethod: string,
    params: unknown[],
    onValue: (value: unknown) => void,
    bound?: ConnectionBound,
  ): Promise<() => Promise<void>> {
    const subscription = new Subscription(notification, method, unsubscribeMethod, params, onValue, bound);
    await this.request(method, params, subscription);
    return () => this.unsubscribe(subscription);
  }

  /** Stops reconnecting, fails the calls in flight, and closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.failAll('the connection to the node was closed');
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else {
        socket.close(1000);
        // A node that does not answer the closing handshake is not waited for.
        setTimeout(() => socket.terminate(), 1000).unref();
      }
    });
  }

  private request(method: string, params: unknown[], subscription: Subscription | undefined): Promise<unknown> {
    const socket = this.socket;
    if (!this.open || !socket) return Promise.reject(new NodeUnavailableError('the node is not connected'));
    const tcp = this.tcp;
    if (tcp && tcp.writableLength > MAX_UNSENT_BYTES) return Promise.reject(new NodeUnavailableError('the node is not reading its calls'));
    let id = this.nextId;
    while (this.inFlight.has(id)) id = id >= MAX_ID ? 1 : id + 1;
    this.nextId = id >= MAX_ID ? 1 : id + 1;
    const text = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const deadline = Date.now() + this.timeoutMs;
    const call = new PendingCall(method, deadline, subscription);
    const answer = new Promise<unknown>((resolve, reject) => {
      call.resolve = resolve;
      call.reject = reject;
    });
    this.inFlight.set(id, call);
    if (subscription) this.subscribing += 1;
    if (this.deadlineTimer === undefined) this.armDeadlineTimer(deadline);
    if (this.corked === undefined && tcp) {
      tcp.cork();
      this.corked = tcp;
      process.nextTick(this.uncork);
    }
    socket.send(text);
    return answer;
  }

  private readonly uncork = () => {
    const tcp = this.corked;
    this.corked = undefined;
    tcp?.uncork();
  };

  private async unsubscribe(subscription: Subscription): Promise<void> {
    if (subscription.ended) return;
    subscription.ended = true;
    this.subscriptions.delete(subscription);
    const id = subscription.serverId;
    if (id === undefined) return;
    subscription.serverId = undefined;
    this.byServerId.delete(id);
    if (!this.open) return; // the node dropped it with the connection
    await this.request(subscription.unsubscribeMethod, [id], undefined).catch(() => undefined);
  }

  private connect(): void {
    if (this.closed) return;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url, {
        maxPayload: this.maxPayload,
        perMessageDeflate: false,
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
        followRedirects: false,
      });
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.on('upgrade', (response: IncomingMessage) => {
      this.tcp = response.socket as Socket;
    });
    socket.on('open', () => this.onOpen(socket));
    socket.on('message', this.onMessage);
    // Every error is followed by 'close', which fails the calls and reconnects.
    socket.on('error', () => undefined);
    socket.on('close', (code: number, reason: Buffer) => this.onClose(socket, code, reason));
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    this.reconnectTimer = setTimeout(() => this.connect(), this.reconnectMs);
    this.reconnectTimer.unref();
  }

  private onOpen(socket: WebSocket): void {
    if (socket !== this.socket) return;
    if (this.closed) {
      socket.close(1000);
      return;
    }
    this.open = true;
    this.opens++;
    this.markReady();
    for (const subscription of this.subscriptions) {
      if (subscription.serverId !== undefined || subscription.ended) continue;
      if (NOT_RENEWED.test(subscription.notification)) {
        this.subscriptions.delete(subscription);
        continue;
      }
      // Not answered (an error, or the connection lost again): tried again at the next reconnect.
      this.request(subscription.method, subscription.params, subscription).catch(() => undefined);
    }
  }

  private onClose(socket: WebSocket, code: number, reason: Buffer): void {
    if (socket !== this.socket) return;
    this.open = false;
    this.socket = undefined;
    this.tcp = undefined;
    const lost: ConnectionBound[] = [];
    for (const subscription of this.subscriptions) {
      subscription.serverId = undefined;
      if (!subscription.bound) continue;
      subscription.ended = true;
      this.subscriptions.delete(subscription);
      lost.push(subscription.bound);
    }
    this.byServerId.clear();
    const why = reason.length > 0 ? `${code} ${reason.toString().slice(0, 120)}` : String(code);
    this.failAll(`disconnected from the node (${why})`);
    for (const bound of lost) {
      try {
        bound.lost();
      } catch {
        // The subscriber's fault; the others are still told.
      }
    }
    this.scheduleReconnect();
  }

  private failAll(message: string): void {
    if (this.inFlight.size === 0) return;
    const calls = [...this.inFlight.values()];
    this.inFlight.clear();
    this.subscribing = 0;
    this.dropEarly();
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    const error = new NodeUnavailableError(message);
    for (const call of calls) call.reject(error);
  }

  private armDeadlineTimer(deadline: number): void {
    this.deadlineTimer = setTimeout(this.sweep, Math.max(deadline - Date.now(), SWEEP_MIN_MS));
    this.deadlineTimer.unref();
  }

  /** Gives up the calls past their deadline; arms the timer again for the oldest call left. */
  private readonly sweep = () => {
    this.deadlineTimer = undefined;
    const now = Date.now();
    for (const [id, call] of this.inFlight) {
      if (call.deadline > now) {
        this.armDeadlineTimer(call.deadline);
        return;
      }
      this.inFlight.delete(id);
      this.settled(call);
      call.reject(new NodeTimeoutError(`the node did not answer ${call.method} in ${this.timeoutMs} ms`));
    }
  };

  private readonly onMessage = (data: RawData) => {
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      this.dropped += 1;
      return;
    }
    const bytes = (data as Buffer).length ?? 0;
    try {
      if (Array.isArray(message)) for (const item of message) this.route(item, bytes);
      else this.route(message, bytes);
    } catch {
      // Nothing a node sends may end the process.
      this.dropped += 1;
    }
    if (this.inFlight.size > 0) this.acknowledge();
  };

  /**
   * Answers still due: an unsolicited pong (RFC 6455 5.5.3; nothing answers it) carries this
   * side's TCP acknowledgement out at once. A node's RPC server holds its next answer until the
   * last is acknowledged (Nagle's algorithm), and Linux delays an acknowledgement with nothing to
   * send by up to 40 ms. Measured beside polkadot-omni-node 0.24.0: three calls of one wave
   * answered in 44 ms (median), in 0.7 ms with this pong, in 0.4 ms as one batch.
   */
  private acknowledge(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    socket.pong();
  }

  private route(value: unknown, bytes: number): void {
    if (typeof value !== 'object' || value === null) {
      this.dropped += 1;
      return;
    }
    const message = value as JsonRpcMessage;
    const id = message.id;
    if (typeof id === 'number') {
      const call = this.inFlight.get(id);
      if (call === undefined) {
        this.dropped += 1;
        return;
      }
      this.inFlight.delete(id);
      this.answer(call, message);
      this.settled(call);
      return;
    }
    const params = message.params;
    if (typeof message.method === 'string' && typeof params === 'object' && params !== null) {
      const serverId = params.subscription;
      if (typeof serverId === 'string' || typeof serverId === 'number') {
        this.notify(serverId, message, bytes);
        return;
      }
    }
    this.dropped += 1;
  }

  private answer(call: PendingCall, message: JsonRpcMessage): void {
    const error = message.error;
    if (error !== undefined) {
      if (typeof error === 'object' && error !== null && typeof error.code === 'number') {
        call.reject(new RpcError(error.code, typeof error.message === 'string' ? error.message : String(error.message ?? ''), error.data));
      } else {
        call.reject(new NodeUnavailableError(`the node answered ${call.method} with a malformed error`));
      }
      return;
    }
    const result = message.result;
    if (result === undefined) {
      call.reject(new NodeUnavailableError(`the node answered ${call.method} with neither a result nor an error`));
      return;
    }
    const subscription = call.subscription;
    if (subscription) {
      if (typeof result !== 'string' && typeof result !== 'number') {
        call.reject(new NodeUnavailableError(`the node answered ${call.method} with no subscription id`));
        return;
      }
      this.opened(subscription, result);
    }
    call.resolve(result);
  }

  /** A call left `inFlight`: a subscribing one no longer holds early notifications. */
  private settled(call: PendingCall): void {
    if (call.subscription && --this.subscribing === 0) this.dropEarly();
  }

  private opened(subscription: Subscription, serverId: SubscriptionId): void {
    if (subscription.ended) {
      // Ended while being renewed: the node is told at once.
      this.request(subscription.unsubscribeMethod, [serverId], undefined).catch(() => undefined);
      return;
    }
    subscription.serverId = serverId;
    this.subscriptions.add(subscription);
    this.byServerId.set(serverId, subscription);
    subscription.bound?.opened(serverId);
    const waiting = this.early.get(serverId);
    if (waiting) {
      this.early.delete(serverId);
      for (const { message, bytes } of waiting) {
        this.earlyBytes -= bytes;
        this.deliver(subscription, message);
      }
    }
  }

  private notify(serverId: SubscriptionId, message: JsonRpcMessage, bytes: number): void {
    const subscription = this.byServerId.get(serverId);
    if (subscription) {
      this.deliver(subscription, message);
      return;
    }
    // A node may send the first notification before the answer that names the subscription.
    if (this.subscribing === 0 || this.earlyBytes + bytes > MAX_EARLY_BYTES) {
      this.dropped += 1;
      return;
    }
    this.earlyBytes += bytes;
    const waiting = this.early.get(serverId);
    if (waiting) waiting.push({ message, bytes });
    else this.early.set(serverId, [{ message, bytes }]);
  }

  private dropEarly(): void {
    for (const waiting of this.early.values()) this.dropped += waiting.length;
    this.early.clear();
    this.earlyBytes = 0;
  }

  private deliver(subscription: Subscription, message: JsonRpcMessage): void {
    const params = message.params as { result?: unknown; error?: unknown };
    // A notification that carries an error instead of a value (the node's, about this subscription) has nothing to hand on.
    if (params.error !== undefined || params.result === undefined) return;
    try {
      subscription.onValue(params.result);
    } catch {
      // The subscriber's fault; the connection and the other subscribers go on.
    }
  }
}
