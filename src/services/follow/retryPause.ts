// The wait before trying a finalized block again after a failure: doubling from half a
// second to ten, so a node that is away is asked less and less, and one that is back soon
// loses little. Shared by the streams and the extrinsic index, which both never skip a height.
const FIRST_MS = 500;
const LONGEST_MS = 10_000;

/** Resolves after the pause owed for `failures` failures in a row (1 or more); never holds the process open. */
export function pauseAfterFailures(failures: number): Promise<void> {
  const ms = Math.min(LONGEST_MS, FIRST_MS * 2 ** (failures - 1));
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
