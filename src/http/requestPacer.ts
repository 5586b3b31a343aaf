// Starts requests in arrival order, a few milliseconds' worth per event-loop turn.
//
// Since libuv 1.45 (Node 20) a listening socket accepts one connection per loop
// turn, and in cluster mode a worker takes one handed-over connection per turn.
// Handled straight from the poll phase, a thousand busy keep-alive connections make
// each turn last a few hundred milliseconds: new connections then trickle in at a
// few per second and wait, unserved, for half a minute. Keeping each turn short
// keeps admitting them while established clients are served in turn.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

const ARRIVED = Symbol('arrived');
type PacedRequest = IncomingMessage & { [ARRIVED]?: number };

export class RequestPacer {
  private readonly waiting: (() => void)[] = [];
  private next = 0;
  private scheduled = false;
  /** Estimated cost of one request over a whole turn: its start, its awaited parts, its reply. */
  private msPerRequest = 0.05;
  private lastDrainAt = 0;
  private lastBatch = 0;

  /**
   * @param turnMs the length of loop turn to aim for while requests are queued
   * @param now the clock in milliseconds (tests pass their own)
   */
  constructor(
    private readonly turnMs = 5,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get queued(): number {
    return this.waiting.length - this.next;
  }

  /** Queues `start`; `isAbandoned` is asked just before, so clients that left cost nothing. */
  enqueue(start: () => void, isAbandoned: () => boolean): void {
    this.waiting.push(() => {
      if (!isAbandoned()) start();
    });
    if (!this.scheduled) {
      this.scheduled = true;
      this.lastBatch = 0;
      setImmediate(this.drain);
    }
  }

  private readonly drain = (): void => {
    // Most of a request's work runs after its start returns (promise continuations,
    // compression callbacks, the reply), so the cost is measured over whole turns:
    // only while a backlog remains, when the loop never sat idle in between.
    const now = this.now();
    if (this.lastBatch > 0) this.msPerRequest = 0.8 * this.msPerRequest + (0.2 * (now - this.lastDrainAt)) / this.lastBatch;
    const batch = Math.max(1, Math.floor(this.turnMs / this.msPerRequest));
    const end = Math.min(this.waiting.length, this.next + batch);
    this.lastDrainAt = now;
    this.lastBatch = end - this.next;
    while (this.next < end) this.waiting[this.next++]();
    if (this.next === this.waiting.length) {
      this.waiting.length = 0;
      this.next = 0;
      this.scheduled = false;
      return;
    }
    // Drop the started prefix now and then, so the array does not grow without end.
    if (this.next > 1024) {
      this.waiting.splice(0, this.next);
      this.next = 0;
    }
    setImmediate(this.drain);
  };
}

/** `listener`, started through `pacer`; a request whose client has gone is never started. */
export function paced(listener: RequestListener, pacer: RequestPacer): RequestListener {
  return (req: PacedRequest, res: ServerResponse) => {
    req[ARRIVED] = performance.now();
    pacer.enqueue(
      () => listener(req, res),
      () => !req.socket.writable,
    );
  };
}

/** When the request was read (performance.now()), so its measured duration includes its time in the queue. */
export function arrivedAt(req: IncomingMessage): number {
  return (req as PacedRequest)[ARRIVED] ?? performance.now();
}
