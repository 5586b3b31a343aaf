// Whether a Redis connection answers, not only whether it is open. A Redis that is
// frozen (stopped, swapping, stuck on a slow command) keeps its connection open while
// nothing answers: the client still says `ready`, and every command would wait out its
// timeout. A command that times out or fails on an open connection marks Redis away
// here; from then on callers skip it at once (no request waits on it again), and a
// ping now and then finds it answering again. A closed connection is away too, until
// it is ready again. Each change is said once, however many commands notice it.
import type Redis from 'ioredis';

/** The longest any command waits for Redis before it counts as away. */
export const REDIS_BOUND_MS = 250;
/**
 * ioredis's own command timeout, for commands bounded by `withinBound`: it only frees a
 * command that a frozen Redis never answers; the bound itself is `withinBound`'s.
 */
export const REDIS_GIVE_UP_MS = 20 * REDIS_BOUND_MS;
/** A bound's timer firing later than this says this process was busy, not that Redis was slow. */
const LATE_MS = REDIS_BOUND_MS / 2;
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
      this.client.ping().then(
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
 * When this process itself was busy past the bound (a runtime's codecs compiled, a large
 * block decoded), its timer fires late, maybe before the command was even written (ioredis
 * sends pipelined commands on a later turn) or its reply read: ioredis's commandTimeout
 * would then call Redis away for this process's stall. Here a timer that fired late gives
 * Redis the bound again from then, and the verdict waits for the loop's next look at its
 * sockets, so a reply that arrived meanwhile settles the command first.
 */
export function withinBound<T>(command: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout;
    const arm = () => {
      const due = Date.now() + REDIS_BOUND_MS;
      timer = setTimeout(() => {
        if (Date.now() - due > LATE_MS) arm();
        else
          setImmediate(() => {
            if (!settled) reject(new RedisTimeout());
          });
      }, REDIS_BOUND_MS);
    };
    arm();
    command.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
