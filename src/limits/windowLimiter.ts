// One rate (calls per window, with a burst) counted per key, on
// rate-limiter-flexible: in Redis when there is a store, each key's counter a
// Lua increment with its expiry; in process otherwise. A key that has used its
// window is remembered in process until the window ends, so a flood from it costs
// Redis nothing; and while Redis is away each process counts in memory (the
// library's insurance limiter), then shares again once it is back.
//
// The calls of one key that arrive in one turn of the event loop are counted in
// one increment, then handed their verdicts in arrival order: the same outcome as
// one increment each (a counter says how far past the limit it went, so the first
// calls that fit go ahead), for one Redis command instead of dozens when a client
// keeps many connections busy.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

import type { CounterStore } from './counterStore';
import { BURST_WINDOWS, type Rate } from './rates';

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

interface Waiter {
  calls: number;
  /** 0: go ahead; else the milliseconds to wait. */
  settle(waitMs: number): void;
}

/** How many of `points` a counter of `limit` let through, and when it lets more. */
async function take(limiter: RateLimiterAbstract, key: string, points: number, limit: number): Promise<{ taken: number; retryMs: number }> {
  try {
    await limiter.consume(key, points);
    return { taken: points, retryMs: 0 };
  } catch (refusal) {
    // Anything but a refusal is the counters failing, and they must not fail a request.
    if (!(refusal instanceof RateLimiterRes)) return { taken: points, retryMs: 0 };
    // A key blocked in process was not counted again (its consumed points read 0): nothing fits.
    const over = refusal.consumedPoints - limit;
    return { taken: over > 0 ? Math.max(0, points - over) : 0, retryMs: Math.max(1, refusal.msBeforeNext) };
  }
}

export class WindowLimiter {
  private readonly steady: RateLimiterAbstract;
  private readonly burst?: RateLimiterAbstract;
  private waiting = new Map<string, Waiter[]>();
  private flushing = false;

  constructor(
    readonly rate: Rate,
    keyPrefix: string,
    store?: CounterStore,
  ) {
    this.steady = counter(keyPrefix, rate.calls, rate.windowSeconds, store);
    if (rate.burst > 0) this.burst = counter(`${keyPrefix}:burst`, rate.burst, rate.windowSeconds * BURST_WINDOWS, store);
  }

  /**
   * Counts `calls` for `key`: resolves to 0 when they may go ahead, else to the
   * milliseconds until its window lets it in again. More calls than a window holds
   * count as a full window, so that a large batch can pass once, then waits its turn.
   */
  wait(key: string, calls = 1): Promise<number> {
    return new Promise((settle) => {
      const waiter = { calls: Math.min(calls, this.rate.calls), settle };
      const queue = this.waiting.get(key);
      if (queue) queue.push(waiter);
      else this.waiting.set(key, [waiter]);
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const turn = this.waiting;
    this.waiting = new Map();
    this.flushing = false;
    for (const [key, waiters] of turn) void this.count(key, waiters);
  }

  /** One increment for the key's calls of this turn (and one of its burst for those past its window). */
  private async count(key: string, waiters: Waiter[]): Promise<void> {
    let calls = 0;
    for (const waiter of waiters) calls += waiter.calls;
    const steady = await take(this.steady, key, calls, this.rate.calls);
    let allowed = steady.taken;
    if (allowed < calls && this.burst) allowed += (await take(this.burst, key, calls - allowed, this.rate.burst)).taken;
    for (const waiter of waiters) {
      if (waiter.calls <= allowed) {
        allowed -= waiter.calls;
        waiter.settle(0);
      } else {
        allowed = 0; // in order: a later, smaller call does not pass one refused before it
        waiter.settle(steady.retryMs);
      }
    }
  }
}
