// The Redis connection that rate-limit counters are kept in, so that every
// process behind one balancer counts a client once. Redis being away must never
// refuse or stall a request: a command not answered quickly fails, and the
// limiters count in process meanwhile (their insurance). Each change between
// shared and in-process counting is logged once, not per request.
import Redis from 'ioredis';

import { urlForLogs, type Logger } from '../logger';

/** A counter update waits no longer than this for Redis before the process counts on its own. */
const COMMAND_TIMEOUT_MS = 250;

export class CounterStore {
  readonly client: Redis;
  private away = false;
  private closing = false;

  constructor(url: string, logger: Logger) {
    this.client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Under load, the counters of many requests leave in one write.
      enableAutoPipelining: true,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    const where = urlForLogs(url);
    const lost = () => {
      if (this.away || this.closing) return;
      this.away = true;
      logger.warn({ redis: where }, 'Redis is away: rate limits are counted in this process until it is back');
    };
    this.client.on('error', lost);
    this.client.on('close', lost);
    this.client.on('ready', () => {
      if (this.away) logger.info({ redis: where }, 'Redis is back: rate limits are shared again');
      this.away = false;
    });
  }

  /** Counters are in Redis right now (else each process counts on its own). */
  get shared(): boolean {
    return this.client.status === 'ready';
  }

  close(): void {
    this.closing = true;
    this.client.disconnect();
  }
}
