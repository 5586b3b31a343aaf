// Which seeded chain the code asks for: the runtime's hash and the code that seeds
// it. Full-line comments and blank lines do not count, so rewording a comment in
// seed.ts or genesis.ts does not force the 15-minute reseed; any code change does
// (a reformat too: biome.json leaves these two files out of the formatter).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DEVNET_DIR, RUNTIME_SHA256_PATH } from './paths';

const SEEDING_SOURCES = ['seed.ts', 'genesis.ts'];

/** The lines of a TypeScript source that are code. */
export function codeLines(source: string): string {
  return source
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => {
      const start = line.trimStart();
      return start !== '' && !start.startsWith('//') && !start.startsWith('/*') && !start.startsWith('*');
    })
    .join('\n');
}

/**
 * undefined in a packaged build that carries no devnet sources (the Docker image):
 * there the stored chain is the one the build was made with.
 */
export function seedVersion(): string | undefined {
  const sources = SEEDING_SOURCES.map((file) => join(DEVNET_DIR, file));
  if (!sources.every((path) => existsSync(path))) return undefined;
  const hash = createHash('sha256');
  hash.update(readFileSync(RUNTIME_SHA256_PATH));
  for (const path of sources) hash.update(codeLines(readFileSync(path, 'utf8')));
  return hash.digest('hex').slice(0, 16);
}
