// A count of things in use with a cap, and a queue of those waiting for one
// to be given back; a waiter whose signal fires (its caller left) leaves the
// queue without ever taking one.

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

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inUse -= 1;
  }
}
