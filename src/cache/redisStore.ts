// The shared second cache layer. Redis being down, or frozen with its connection
// open, must never fail or hold up a request: every command gives up once Redis has
// had REDIS_BOUND_MS (a second at most, however busy this process is), the first that
// does marks Redis away (redisLiveness.ts) and the
// callers fall back to the node (and to building alone) without trying it again
// until it answers. Beside the entries, the few commands build leases need
// (buildLeases.ts): a key taken only if free, freed only by its holder, and a
// channel that says a build ended.
import Redis from 'ioredis';

import type { Logger } from '../logger';
import { BOUNDED_CONNECTION, REDIS_BOUND_MS, RedisLiveness, withinBound } from './redisLiveness';

/** Deletes KEYS[1] only while it still holds ARGV[1]: a lease that lapsed and was taken by another is not freed by its old holder. */
const DELETE_IF_HELD = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

type Words = Pick<Logger, 'warn' | 'info' | 'flush'>;

export class RedisStore {
  private readonly client: Redis;
  private listener?: Redis;
  private readonly liveness: RedisLiveness;
  private readonly awayListeners: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    logger?: Words,
  ) {
    this.client = connect(url);
    this.liveness = new RedisLiveness(this.client, {
      away: () => {
        logger?.warn(`Redis is away (or did not answer within ${REDIS_BOUND_MS} ms): this replica reads and builds final answers for itself until it is back`);
        // Out now, not when the log's buffer fills: the operator should see it while it matters.
        logger?.flush();
        for (const listener of this.awayListeners) listener();
      },
      back: () => {
        logger?.info('Redis is back: final answers are shared and built once across the replicas again');
        logger?.flush();
      },
    });
  }

  /** Redis answers now: commands are sent (else each gives up at once). */
  get connected(): boolean {
    return this.liveness.answering;
  }

  /**
   * Resolves once the first connection is open, or after `ms`: a replica's first reads go to the
   * shared answers rather than to the node, and a Redis that is down at start holds the start up
   * no longer than this (the connection goes on trying, and is used once it opens).
   */
  whenOpen(ms: number): Promise<void> {
    if (this.client.status === 'ready') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.client.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.client.once('ready', done);
    });
  }

  /** Calls `listener` each time Redis goes away (closed, or not answering). */
  onAway(listener: () => void): void {
    this.awayListeners.push(listener);
  }

  async get(key: string): Promise<string | undefined> {
    if (!this.connected) return undefined;
    const value = await this.bounded(this.client.get(this.prefix + key));
    return value ?? undefined;
  }

  async set(key: string, value: string): Promise<void> {
    if (!this.connected) return;
    await this.bounded(this.client.set(this.prefix + key, value, 'EX', this.ttlSeconds));
  }

  /** Sets `key` to `value` for `ms` only if it is free: true when this call took it. Fails while Redis is away. */
  async takeIfFree(key: string, value: string, ms: number): Promise<boolean> {
    if (!this.connected) throw new Error('Redis is away');
    return (await this.bounded(this.client.set(this.prefix + key, value, 'PX', ms, 'NX'))) === 'OK';
  }

  /** Deletes `key` if it still holds `value`. */
  async freeIfHeld(key: string, value: string): Promise<void> {
    if (!this.connected) return;
    await this.bounded(this.client.eval(DELETE_IF_HELD, 1, this.prefix + key, value));
  }

  /** Milliseconds `key` has left: 0 when it is gone. Fails while Redis is away. */
  async remainingMs(key: string): Promise<number> {
    if (!this.connected) throw new Error('Redis is away');
    return Math.max(0, await this.bounded(this.client.pttl(this.prefix + key)));
  }

  async publish(channel: string, message: string): Promise<void> {
    if (!this.connected) return;
    await this.bounded(this.client.publish(this.prefix + channel, message));
  }

  /**
   * Calls `onMessage` with each message on `channel`, over a connection of its own (a
   * subscribed connection takes no other commands), subscribed again after each reconnect.
   */
  listen(channel: string, onMessage: (message: string) => void): void {
    if (this.listener) throw new Error('RedisStore listens on one channel');
    const listener = connect(this.url);
    const name = this.prefix + channel;
    listener.on('ready', () => void listener.subscribe(name).catch(() => undefined));
    listener.on('message', (from: string, message: string) => {
      if (from === name) onMessage(message);
    });
    this.listener = listener;
  }

  /** Whether the channel's messages arrive now. */
  get listening(): boolean {
    return this.connected && this.listener?.status === 'ready';
  }

  async close(): Promise<void> {
    this.liveness.close();
    this.client.disconnect();
    this.listener?.disconnect();
  }

  /** A command's answer; its failure (a timeout on a frozen Redis included) marks Redis away. */
  private async bounded<T>(command: Promise<T>): Promise<T> {
    try {
      return await withinBound(command);
    } catch (error) {
      this.liveness.failed();
      throw error;
    }
  }
}

function connect(url: string): Redis {
  const client = new Redis(url, BOUNDED_CONNECTION);
  // Connection errors are expected while Redis is away; they surface as misses.
  client.on('error', () => undefined);
  return client;
}
