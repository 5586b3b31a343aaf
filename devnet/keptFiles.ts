// What the devnet derives once and keeps for the processes after it (a chain spec, the
// runtime's own answers). Several processes start at once (jest workers, a benchmark's
// services): one may read a file while another writes it, and must never see half of one.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `value` as JSON at `path`: aside first, then moved into place in one step. */
export function keepJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  writeFileSync(partial, JSON.stringify(value));
  renameSync(partial, path);
}
