// Identical calls in flight sent upstream once, and given up once nobody
// waits for them: each caller brings its own abort signal (its client left),
// and when the last caller's fires the shared call is aborted (a call still
// waiting for a free upstream slot is then never sent). Callers keep waiting
// for the shared call to end even so, since the fair scheduler counts a call
// against its client until the node is done with it.

interface Running<T> {
  promise: Promise<T>;
  controller: AbortController;
  /** Callers that may still want the answer; Infinity once one cannot leave. */
  waiters: number;
}

export class MergedCalls<T> {
  private readonly running = new Map<string, Running<T>>();

  /** The running call for `key`, or `work` started now; `joined` says which. */
  run(key: string, work: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): { promise: Promise<T>; joined: boolean } {
    let entry = this.running.get(key);
    const joined = entry !== undefined;
    if (!entry) {
      const controller = new AbortController();
      const created: Running<T> = { controller, waiters: 0, promise: Promise.resolve(undefined as T) };
      created.promise = work(controller.signal).finally(() => {
        if (this.running.get(key) === created) this.running.delete(key);
      });
      this.running.set(key, created);
      entry = created;
    }
    const shared = entry;
    if (!signal) shared.waiters = Infinity;
    else if (signal.aborted) {
      if (shared.waiters === 0) this.abandon(key, shared);
    } else {
      shared.waiters += 1;
      const onAbort = () => this.leave(key, shared);
      signal.addEventListener('abort', onAbort, { once: true });
      shared.promise.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => undefined);
    }
    return { promise: shared.promise, joined };
  }

  private leave(key: string, entry: Running<T>): void {
    entry.waiters -= 1;
    if (entry.waiters === 0) this.abandon(key, entry);
  }

  private abandon(key: string, entry: Running<T>): void {
    // Nobody wants it: later callers start afresh rather than join a call being given up.
    if (this.running.get(key) === entry) this.running.delete(key);
    entry.controller.abort();
  }

  /** Settles once everything in flight now has settled. */
  async drain(): Promise<void> {
    await Promise.all([...this.running.values()].map((entry) => entry.promise.catch(() => undefined)));
  }
}
