// Comparisons of many paths, a few at a time: sidecar and the node answer while the next
// request is on its way, and a suite waits for the slowest of four, not the sum of all.

/** Runs `work` over `items` with at most `limit` at a time (the first failure fails the whole). */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}
