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
