// One rate (calls per window, with a burst) counted per key, on
// rate-limiter-flexible: in Redis when there is a store, each key's counter a
// Lua increment with its expiry; in process otherwise. A key that has used its
// window is remembered in process until the window ends, so a flood from it costs
// Redis nothing; and while Redis is away (closed, or open and not answering within
// its bound) each process counts in memory, then shares again once it answers.
//
// The calls of one key that arrive in one turn of the event loop are counted in
// one increment, then handed their verdicts in arrival order: the same outcome as
// one increment each (a counter says how far past the limit it went, so the first
// calls that fit go ahead), for one Redis command instead of dozens when a client
// keeps many connections busy.
//
// A key well under its window need not wait for that increment (admitNow): each
// answer of the counter says how many calls the window holds and when it ends, and
// while that count plus every call of this process not yet answered for leaves room,
// a call is let in at once and counted in the background (the calls of a few
// milliseconds in one increment per key). A lone process is
// never wrong by this (it knows all the calls). Where processes share a counter, one
// cannot see what the others counted since its last answer: each may let in at most
// twice its cap on calls not yet answered for (optimisticShare) past the limit in a
// window, the calls it had on their way to Redis when the count crossed the limit and
// those it let in before the answer saying so came back.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

import { withinBound } from '../cache/redisLiveness';
import type { CounterStore } from './counterStore';
import { BURST_WINDOWS, type Rate } from './rates';

/**
 * One rate's counter: in Redis while the store answers, else in process. A Redis that
 * fails or does not answer within its bound is marked away on the store, and the call
 * is counted in process at once; no call is tried on Redis again until it answers.
 */
class Counter {
  private readonly memory: RateLimiterMemory;
  private readonly redis?: RateLimiterRedis;

  constructor(
    keyPrefix: string,
    points: number,
    duration: number,
    private readonly store?: CounterStore,
  ) {
    this.memory = new RateLimiterMemory({ keyPrefix, points, duration });
    if (store)
      this.redis = new RateLimiterRedis({
        storeClient: store.client,
        keyPrefix,
        points,
        duration,
        inMemoryBlockOnConsumed: points,
        rejectIfRedisNotReady: true,
      });
  }

  async consume(key: string, points: number): Promise<RateLimiterRes> {
    if (!this.redis || !this.store?.shared) return this.memory.consume(key, points);
    try {
      return await withinBound(this.redis.consume(key, points));
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) throw refusal;
      this.store.failed();
      return this.memory.consume(key, points);
    }
  }
}

interface Waiter {
  calls: number;
  /** 0: go ahead; else the milliseconds to wait. */
  settle(waitMs: number): void;
}

/** What this process knows of one key's window. */
interface Known {
  /** Calls counted in the window as of the counter's last answer (past the limit when it refused). */
  counted: number;
  /** When that window ends (Date.now() time). */
  endsAt: number;
  /** Calls of this process sent or about to be sent to the counter, not answered for yet. */
  unanswered: number;
}

interface Taken {
  /** How many of the points fit. */
  taken: number;
  retryMs: number;
  /** What the counter said of the window, when it answered at all. */
  window?: { counted: number; endsInMs: number };
}

/** How many of `points` a counter of `limit` let through, and when it lets more. */
async function take(limiter: Counter, key: string, points: number, limit: number): Promise<Taken> {
  try {
    const answer = await limiter.consume(key, points);
    return { taken: points, retryMs: 0, window: { counted: answer.consumedPoints, endsInMs: answer.msBeforeNext } };
  } catch (refusal) {
    // Anything but a refusal is the counters failing, and they must not fail a request.
    if (!(refusal instanceof RateLimiterRes)) return { taken: points, retryMs: 0 };
    // A key blocked in process was not counted again (its consumed points read 0): nothing fits.
    const over = refusal.consumedPoints - limit;
    const retryMs = Math.max(1, refusal.msBeforeNext);
    return { taken: over > 0 ? Math.max(0, points - over) : 0, retryMs, window: { counted: Math.max(limit, refusal.consumedPoints), endsInMs: retryMs } };
  }
}

/** Calls let in at once are added to the counter this long after the first of them at the latest. */
const BACKGROUND_MS = 5;

/** Known windows are swept of ended ones at most this often. */
const SWEEP_MS = 1000;

/** A tenth of a window may be let in ahead of the counter's answers, by each process (and no more than this). */
const OPTIMISTIC_SHARE = 10;
const OPTIMISTIC_MAX = 100_000;

export class WindowLimiter {
  private readonly steady: Counter;
  private readonly burst?: Counter;
  private waiting = new Map<string, Waiter[]>();
  /** Calls let in at once and not yet sent to the counter, by key. */
  private admitted = new Map<string, number>();
  private readonly known = new Map<string, Known>();
  private flushing = false;
  private backgroundTimer?: NodeJS.Timeout;
  private sweptAt = 0;
  /** Calls of one key this process may have let in and not yet had answered for. */
  readonly optimisticShare: number;

  constructor(
    readonly rate: Rate,
    keyPrefix: string,
    store?: CounterStore,
  ) {
    this.steady = new Counter(keyPrefix, rate.calls, rate.windowSeconds, store);
    if (rate.burst > 0) this.burst = new Counter(`${keyPrefix}:burst`, rate.burst, rate.windowSeconds * BURST_WINDOWS, store);
    this.optimisticShare = Math.min(OPTIMISTIC_MAX, Math.floor(rate.calls / OPTIMISTIC_SHARE));
  }

  /** Whether `calls` for `key` fit in its window as far as this process knows, without asking the counter (then admitNow may count them). */
  fitsNow(key: string, calls: number): boolean {
    const known = this.known.get(key);
    if (known === undefined || known.unanswered + calls > this.optimisticShare) return false;
    return known.counted + known.unanswered + calls <= this.rate.calls && Date.now() < known.endsAt;
  }

  /** Counts `calls` that fitsNow said fit: they go ahead now, and are added to the counter in the background. */
  admitNow(key: string, calls: number): void {
    this.known.get(key)!.unanswered += calls;
    this.admitted.set(key, (this.admitted.get(key) ?? 0) + calls);
    // Nobody waits on these: gathered for a few milliseconds (sooner with a call that waits), not a command each turn.
    this.backgroundTimer ??= setTimeout(() => this.flush(), BACKGROUND_MS);
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
      const known = this.known.get(key);
      if (known) known.unanswered += waiter.calls;
      else this.known.set(key, { counted: 0, endsAt: 0, unanswered: waiter.calls });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const [waiting, admitted] = [this.waiting, this.admitted];
    this.waiting = new Map();
    this.admitted = new Map();
    this.flushing = false;
    clearTimeout(this.backgroundTimer);
    this.backgroundTimer = undefined;
    for (const [key, waiters] of waiting) void this.count(key, waiters, admitted.get(key) ?? 0);
    for (const [key, calls] of admitted) if (!waiting.has(key)) void this.count(key, [], calls);
    const now = Date.now();
    if (now - this.sweptAt < SWEEP_MS) return;
    this.sweptAt = now;
    for (const [key, known] of this.known) if (known.unanswered === 0 && known.endsAt <= now) this.known.delete(key);
  }

  /**
   * One increment for the key's calls of this turn, those let in already first (and one of
   * its burst for those past its window); what the counter answers is what this process
   * knows of the key's window from then on.
   */
  private async count(key: string, waiters: Waiter[], admitted: number): Promise<void> {
    let calls = admitted;
    for (const waiter of waiters) calls += waiter.calls;
    const steady = await take(this.steady, key, calls, this.rate.calls);
    this.learn(key, calls, steady);
    let allowed = steady.taken;
    if (allowed < calls && this.burst) allowed += (await take(this.burst, key, calls - allowed, this.rate.burst)).taken;
    allowed -= admitted;
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

  /** The counter's answer for `calls` of `key`: answers come in the order they were asked, so the last one is the newest. */
  private learn(key: string, calls: number, { window }: Taken): void {
    const known = this.known.get(key);
    if (!known) return;
    known.unanswered -= calls;
    if (!window) return; // the counters failed: what was known stays, and ends with its window
    known.counted = window.counted;
    known.endsAt = Date.now() + window.endsInMs;
  }
}
