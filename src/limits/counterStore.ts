// The Redis connection that rate-limit counters are kept in, so that every
// process behind one balancer counts a client once. Redis being away must never
// refuse or stall a request: a command not answered within the bound fails and
// marks Redis away (a frozen Redis keeps its connection open), and the limiters
// count in process until it answers again (src/cache/redisLiveness.ts). Each
// change between shared and in-process counting is logged once, not per request.
import Redis from 'ioredis';

import { BOUNDED_CONNECTION, REDIS_BOUND_MS, RedisLiveness } from '../cache/redisLiveness';
import { urlForLogs, type Logger } from '../logger';

export class CounterStore {
  readonly client: Redis;
  private readonly liveness: RedisLiveness;

  constructor(url: string, logger: Logger) {
    this.client = new Redis(url, {
      ...BOUNDED_CONNECTION,
      // Under load, the counters of many requests leave in one write.
      enableAutoPipelining: true,
    });
    const where = urlForLogs(url);
    this.liveness = new RedisLiveness(this.client, {
      away: () => {
        logger.warn(
          { redis: where },
          `Redis is away (or did not answer within ${REDIS_BOUND_MS} ms): rate limits are counted in this process until it is back`,
        );
        logger.flush();
      },
      back: () => {
        logger.info({ redis: where }, 'Redis is back: rate limits are shared again');
        logger.flush();
      },
    });
  }

  /** Counters are in Redis right now (else each process counts on its own). */
  get shared(): boolean {
    return this.liveness.answering;
  }

  /** A counter command failed or was not answered in time: counted in process until Redis answers again. */
  failed(): void {
    this.liveness.failed();
  }

  close(): void {
    this.liveness.close();
    this.client.disconnect();
  }
}
