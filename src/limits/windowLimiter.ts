// One rate (calls per window, with a burst) counted per key, on
// rate-limiter-flexible: in Redis when there is a store, each key's counter a
// Lua increment with its expiry; in process otherwise. A key that has used its
// window is remembered in process until the window ends, so a flood from it costs
// Redis nothing; and while Redis is away each process counts in memory (the
// library's insurance limiter), then shares again once it is back.
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

import type { CounterStore } from './counterStore';
import { BURST_WINDOWS, type Rate } from './rates';

interface Consumer {
  consume(key: string, points: number): Promise<RateLimiterRes>;
}

function counter(keyPrefix: string, points: number, duration: number, store?: CounterStore): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration });
  if (!store) return memory;
  return new RateLimiterRedis({
    storeClient: store.client,
    keyPrefix,
    points,
    duration,
    inMemoryBlockOnConsumed: points,
    // Not connected: straight to the insurance, no command tried.
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}

export class WindowLimiter {
  private readonly limiter: Consumer;

  constructor(
    readonly rate: Rate,
    keyPrefix: string,
    store?: CounterStore,
  ) {
    const steady = counter(keyPrefix, rate.calls, rate.windowSeconds, store);
    this.limiter =
      rate.burst > 0 ? new BurstyRateLimiter(steady, counter(`${keyPrefix}:burst`, rate.burst, rate.windowSeconds * BURST_WINDOWS, store)) : steady;
  }

  /**
   * Counts `calls` for `key`: 0 when they may go ahead, else the milliseconds until
   * its window (or its burst) lets it in again. More calls than a window holds count
   * as a full window, so that a large batch can pass once, then waits its turn.
   */
  async wait(key: string, calls = 1): Promise<number> {
    try {
      await this.limiter.consume(key, Math.min(calls, this.rate.calls));
      return 0;
    } catch (refusal) {
      // Anything but a refusal is the counters failing, and they must not fail a request.
      return refusal instanceof RateLimiterRes ? Math.max(1, refusal.msBeforeNext) : 0;
    }
  }
}
