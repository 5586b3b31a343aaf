// The shared second cache layer. Redis being down must never fail a request:
// every call gives up quickly and the caller falls back to the node. Beside the
// entries, the few commands build leases need (buildLeases.ts): a key taken only
// if free, freed only by its holder, and a channel that says a build ended.
import Redis from 'ioredis';

/** Deletes KEYS[1] only while it still holds ARGV[1]: a lease that lapsed and was taken by another is not freed by its old holder. */
const DELETE_IF_HELD = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export class RedisStore {
  private readonly client: Redis;
  private listener?: Redis;

  constructor(
    private readonly url: string,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {
    this.client = connect(url);
  }

  get connected(): boolean {
    return this.client.status === 'ready';
  }

  async get(key: string): Promise<string | undefined> {
    if (!this.connected) return undefined;
    const value = await this.client.get(this.prefix + key);
    return value ?? undefined;
  }

  async set(key: string, value: string): Promise<void> {
    if (!this.connected) return;
    await this.client.set(this.prefix + key, value, 'EX', this.ttlSeconds);
  }

  /** Sets `key` to `value` for `ms` only if it is free: true when this call took it. Fails while Redis is away. */
  async takeIfFree(key: string, value: string, ms: number): Promise<boolean> {
    if (!this.connected) throw new Error('Redis is not connected');
    return (await this.client.set(this.prefix + key, value, 'PX', ms, 'NX')) === 'OK';
  }

  /** Deletes `key` if it still holds `value`. */
  async freeIfHeld(key: string, value: string): Promise<void> {
    if (!this.connected) return;
    await this.client.eval(DELETE_IF_HELD, 1, this.prefix + key, value);
  }

  /** Milliseconds `key` has left: 0 when it is gone. Fails while Redis is away. */
  async remainingMs(key: string): Promise<number> {
    if (!this.connected) throw new Error('Redis is not connected');
    return Math.max(0, await this.client.pttl(this.prefix + key));
  }

  async publish(channel: string, message: string): Promise<void> {
    if (!this.connected) return;
    await this.client.publish(this.prefix + channel, message);
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
    return this.listener?.status === 'ready';
  }

  async close(): Promise<void> {
    this.client.disconnect();
    this.listener?.disconnect();
  }
}

function connect(url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Connection errors are expected while Redis is away; they surface as misses.
  client.on('error', () => undefined);
  return client;
}
