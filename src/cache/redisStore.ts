// The shared second cache layer. Redis being down must never fail a request:
// every call gives up quickly and the caller falls back to the node.
import Redis from 'ioredis';

export class RedisStore {
  private readonly client: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {
    this.client = new Redis(url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      commandTimeout: 500,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // Connection errors are expected while Redis is away; they surface as misses.
    this.client.on('error', () => undefined);
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

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
