// Whether a Redis connection answers, not only whether it is open. A Redis that is
// frozen (stopped, swapping, stuck on a slow command) keeps its connection open while
// nothing answers: the client still says `ready`, and every command would wait out its
// timeout. A command that times out or fails on an open connection marks Redis away
// here; from then on callers skip it at once (no request waits on it again), and a
// ping now and then finds it answering again. A closed connection is away too, until
// it is ready again. Each change is said once, however many commands notice it.
import { performance } from 'node:perf_hooks';

import type Redis from 'ioredis';
import type { RedisOptions } from 'ioredis';

/** How long Redis has to answer a command (its time, as `withinBound` counts it) before it counts as away. */
export const REDIS_BOUND_MS = 250;
/** How long a connection may take to open (a replica's start waits for its first this long at most). */
export const REDIS_CONNECT_MS = 1000;
/**
 * How every Redis connection is opened: no queue while it is closed, no retried command,
 * and ioredis's own command timeout far past the bound, only to free a command that a
 * frozen Redis never answers (the bound itself is `withinBound`'s).
 */
export const BOUNDED_CONNECTION: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: REDIS_CONNECT_MS,
  commandTimeout: 20 * REDIS_BOUND_MS,
  retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
};
/** Redis's time is counted in ticks of this length; a tick that came late counts this much, no more. */
const TICK_MS = 25;
/** However busy this process is, a command not answered within this has failed. */
const LONGEST_MS = 4 * REDIS_BOUND_MS;
/** How often an open connection that stopped answering is pinged. */
const PROBE_MS = 500;

export interface LivenessWords {
  away(): void;
  back(): void;
}

export class RedisLiveness {
  private away = false;
  private probe?: NodeJS.Timeout;
  private closing = false;

  constructor(
    private readonly client: Redis,
    private readonly say: LivenessWords,
  ) {
    // An error need not close the connection: then no 'ready' follows, and only a ping finds Redis again.
    client.on('error', () => this.failed());
    client.on('close', () => this.lost());
    client.on('ready', () => this.found());
  }

  /** Commands may be sent now: the connection is open and its last command was answered. */
  get answering(): boolean {
    return !this.away && this.client.status === 'ready';
  }

  /** A command failed or timed out: Redis counts as away until a ping is answered (or it reconnects). */
  failed(): void {
    this.lost();
    if (this.client.status === 'ready') this.startProbe();
  }

  close(): void {
    this.closing = true;
    clearInterval(this.probe);
  }

  private startProbe(): void {
    if (this.probe || this.closing) return;
    this.probe = setInterval(() => {
      if (this.client.status !== 'ready') return;
      withinBound(this.client.ping()).then(
        () => this.found(),
        () => undefined,
      );
    }, PROBE_MS);
    this.probe.unref();
  }

  private lost(): void {
    if (this.away || this.closing) return;
    this.away = true;
    this.say.away();
  }

  private found(): void {
    clearInterval(this.probe);
    this.probe = undefined;
    if (!this.away || this.closing) return;
    this.away = false;
    this.say.back();
  }
}

/** A Redis command not answered within REDIS_BOUND_MS. */
export class RedisTimeout extends Error {
  constructor() {
    super(`Redis did not answer within ${REDIS_BOUND_MS} ms`);
  }
}

/**
 * `command`'s outcome, or a RedisTimeout once Redis has had REDIS_BOUND_MS to answer.
 * Redis's time is what passed while this process could have read its reply: counted in
 * short ticks, of which one that came late (this process was busy: a runtime's codecs
 * compiled, a large block decoded) counts only its own length. ioredis's commandTimeout
 * counts wall time from the command's send, so a stall of this process called an
 * answering Redis away, and a stall before a pipelined command was even sent left Redis
 * no time at all. The verdict waits for the loop's next look at its sockets, so a reply
 * that arrived meanwhile settles the command first; and past LONGEST_MS of wall time it
 * fails however busy this process was, so a frozen Redis is found on a loaded replica too.
 */
export function withinBound<T>(command: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const started = performance.now();
    let lastTick = started;
    let given = 0;
    const tick = () => {
      const now = performance.now();
      given += Math.min(now - lastTick, TICK_MS);
      lastTick = now;
      if (given < REDIS_BOUND_MS && now - started < LONGEST_MS) timer = setTimeout(tick, TICK_MS);
      // A command answered meanwhile has settled already: this rejection is then ignored.
      else setImmediate(() => reject(new RedisTimeout()));
    };
    let timer = setTimeout(tick, TICK_MS);
    command.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
