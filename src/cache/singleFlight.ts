// Identical work in flight done once: callers asking under the same key while
// it runs share its promise; the key is free again as soon as it settles.
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  /** The running promise for `key`, or `work()` started now; `joined` says which. */
  run(key: string, work: () => Promise<T>): { promise: Promise<T>; joined: boolean } {
    const running = this.inFlight.get(key);
    if (running) return { promise: running, joined: true };
    const promise = work().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return { promise, joined: false };
  }

  /** Settles once everything in flight now has settled. */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight.values()].map((promise) => promise.catch(() => undefined)));
  }
}
