// A count of things in use with a cap, and a queue of those waiting for one
// to be given back, in order; a waiter whose signal fires (its caller left)
// leaves the queue without ever taking one. Shared by every layer: the proxy's
// calls in flight per node, block streams' builds of past heights.

/** The caller left while waiting: what it waited for was never started. */
export class AbandonedCallError extends Error {
  constructor() {
    super('the caller has gone');
  }
}

export class Slots {
  inUse = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  get queued(): number {
    return this.waiting.length;
  }

  /** Takes one, waiting for one to be given back if all are in use. */
  async take(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new AbandonedCallError();
    if (this.inUse < this.max) {
      this.inUse += 1;
      return;
    }
    // Handed over by give(): the count stays as it is.
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new AbandonedCallError());
      };
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(wake);
    });
  }

  /** Runs `task` holding one; a finished task hands it straight to the next in line, so no newcomer slips in between. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.take(signal);
    try {
      return await task();
    } finally {
      this.give();
    }
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inUse -= 1;
  }
}
