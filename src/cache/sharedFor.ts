// One answer shared for a while: whatever asks within `maxAgeMs` of the last read
// gets that read's result (or waits on it while it runs), so a value polled hard
// (health) costs one read per period however many ask.
export function sharedFor<T>(maxAgeMs: number, read: () => Promise<T>, now: () => number = () => performance.now()): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const at = now();
    if (!last || at - last.at >= maxAgeMs) {
      const value = read();
      const entry = { at, value };
      last = entry;
      // A failed read is not shared: the next ask tries again.
      value.catch(() => {
        if (last === entry) last = undefined;
      });
    }
    return last.value;
  };
}
