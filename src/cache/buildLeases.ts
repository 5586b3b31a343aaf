// One build of a final answer across every replica sharing a Redis. Before building,
// a replica takes a lease on the answer's key (SET NX with an expiry); a replica
// that finds the lease held waits for the holder to say, on a channel, that the
// answer is kept, and reads it from Redis. The wait is bounded by the lease: a holder
// that died says nothing, its lease lapses, and one waiter (the first to take the
// lease again) builds in its place while the others wait on that one. A holder whose
// build failed, or whose answer turned out not to be final, says so: each waiter then
// builds its own, as without Redis. Redis away (closed, or open and not answering):
// each replica builds for itself, and a waiter is woken at once to do so (the store
// says when Redis goes away, and logs it).
import { randomBytes } from 'node:crypto';

import type { RedisStore } from './redisStore';
import type { TieredCache } from './tieredCache';

/** How a value is kept for the fleet. */
export interface SharedForm<T> {
  /** The value as kept in the cache; undefined when it may still change, and so is never shared. */
  shared(value: T): string | undefined;
  /** A value kept by another replica (or by this one earlier); undefined when it cannot be had from it after all. */
  read(text: string): T | undefined | Promise<T | undefined>;
}

export interface LeaseOptions {
  /** The caller knows the value can no longer change, and so may lead its build (default true). */
  final?: boolean;
  /** Counted in `counters` (default true): false for a lease around a build that takes leases of its own. */
  counted?: boolean;
}

export type LeaseOutcome = 'led' | 'awaited' | 'tookOver' | 'redisAway' | 'notShared';

/** The channel holders announce the end of their builds on. */
const CHANNEL = 'builds';
/** How often a waiter looks at the lease while the channel is down. */
const POLL_MS = 100;
/** Leases waited out before building regardless: the one found, and one taken over from a holder that died. */
const ROUNDS = 2;

/** What a holder said of its build; `away`: nothing more will be heard, Redis went away. */
type Announcement = 'kept' | 'notKept' | 'away';

export class BuildLeases {
  private readonly listeners = new Map<string, Set<(said: Announcement) => void>>();
  private readonly replica = randomBytes(6).toString('hex');
  private sequence = 0;
  readonly counters: Record<LeaseOutcome, number> = { led: 0, awaited: 0, tookOver: 0, redisAway: 0, notShared: 0 };

  /** `leaseMs`: how long a lease holds, so the longest a replica waits on one that died. */
  constructor(
    private readonly cache: TieredCache,
    private readonly redis: RedisStore,
    readonly leaseMs: number,
  ) {
    redis.listen(CHANNEL, (message) => this.heard(message));
    redis.onAway(() => {
      for (const listeners of this.listeners.values()) for (const listener of listeners) listener('away');
    });
  }

  /**
   * The value under `key`: kept by another replica, awaited from the one building it, or
   * built here under the lease (and kept, if `form` shares it, before the others are told).
   * Not `final`: the caller only joins a build another replica leads (the lease says that
   * replica knows the value final), and builds its own, unshared, when none is under way.
   * The caller has looked in the cache already.
   */
  async once<T>(key: string, build: () => Promise<T>, form: SharedForm<T>, { final = true, counted = true }: LeaseOptions = {}): Promise<T> {
    const lease = `lease:${key}`;
    const count = (outcome: LeaseOutcome) => {
      if (counted) this.counters[outcome] += 1;
    };
    if (!final) {
      const held = await this.redis.remainingMs(lease).catch(() => 0);
      if (held === 0) return this.alone(key, build, form);
    }
    for (let round = 0; round < ROUNDS; round++) {
      if (round > 0 || final) {
        const token = `${this.replica}:${++this.sequence}`;
        let taken: boolean;
        try {
          taken = await this.redis.takeIfFree(lease, token, this.leaseMs);
        } catch {
          return this.alone(key, build, form, () => count('redisAway'));
        }
        if (taken)
          return this.lead(
            key,
            lease,
            token,
            build,
            form,
            () => count(round > 0 ? 'tookOver' : 'led'),
            () => count('awaited'),
          );
      }
      const said = await this.waitOut(key, lease);
      const kept = await this.find(key, form);
      if (kept !== undefined) {
        count('awaited');
        return kept;
      }
      if (said === 'away') return this.alone(key, build, form, () => count('redisAway'));
      // The holder's answer may still change, or its build failed: this replica builds its own.
      if (said === 'notKept') return this.alone(key, build, form, () => count('notShared'));
      // Silence and no answer: the holder died; the next round takes the lease over.
    }
    return this.alone(key, build, form, () => count('notShared'));
  }

  private async lead<T>(
    key: string,
    lease: string,
    token: string,
    build: () => Promise<T>,
    form: SharedForm<T>,
    built: () => void,
    found: () => void,
  ): Promise<T> {
    let value: T;
    try {
      // A holder that finished between the caller's look in the cache and this lease has kept its answer.
      const kept = await this.find(key, form);
      if (kept !== undefined) {
        this.end(key, lease, token, 'kept');
        found();
        return kept;
      }
      value = await build();
    } catch (error) {
      this.end(key, lease, token, 'notKept');
      throw error;
    }
    built();
    const shared = form.shared(value);
    // The caller has its value at once; the others are told once Redis holds it.
    if (shared === undefined) this.end(key, lease, token, 'notKept');
    else void this.cache.setShared(key, shared).then(() => this.end(key, lease, token, 'kept'));
    return value;
  }

  /** Told, then freed: a waiter that wakes on the lease's end finds the answer or the word. */
  private end(key: string, lease: string, token: string, said: 'kept' | 'notKept'): void {
    this.redis.publish(CHANNEL, `${said} ${key}`).catch(() => undefined);
    this.redis.freeIfHeld(lease, token).catch(() => undefined);
  }

  /** Built here without a lease; `built` counts it when a lease was wanted. */
  private async alone<T>(key: string, build: () => Promise<T>, form: SharedForm<T>, built?: () => void): Promise<T> {
    const value = await build();
    built?.();
    const shared = form.shared(value);
    if (shared !== undefined) this.cache.set(key, shared);
    return value;
  }

  private async find<T>(key: string, form: SharedForm<T>): Promise<T | undefined> {
    const text = await this.cache.get(key);
    return text === undefined ? undefined : await form.read(text);
  }

  /**
   * Waits, at most one lease time, until the holder announces the end of its build or
   * its lease ends (freed, or lapsed with its holder). The lease is looked at when it
   * is due to lapse, and every POLL_MS while announcements cannot arrive.
   */
  private async waitOut(key: string, lease: string): Promise<Announcement | undefined> {
    const deadline = Date.now() + this.leaseMs;
    const heard: { said?: Announcement; wake?: () => void } = {};
    const listener = (said: Announcement) => {
      heard.said = said;
      heard.wake?.();
    };
    const listeners = this.listeners.get(key) ?? new Set();
    listeners.add(listener);
    this.listeners.set(key, listeners);
    try {
      for (;;) {
        if (!this.redis.connected) return 'away';
        const left = await this.redis.remainingMs(lease).catch(() => 0);
        if (!this.redis.connected) return 'away';
        const wait = Math.min(left, deadline - Date.now(), this.redis.listening ? left : POLL_MS);
        if (heard.said !== undefined || left === 0 || wait <= 0) return heard.said;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait + 1);
          heard.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      listeners.delete(listener);
      if (listeners.size === 0) this.listeners.delete(key);
    }
  }

  private heard(message: string): void {
    const space = message.indexOf(' ');
    const said = message.slice(0, space);
    if (said !== 'kept' && said !== 'notKept') return;
    for (const listener of this.listeners.get(message.slice(space + 1)) ?? []) listener(said);
  }
}
