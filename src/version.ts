import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** This build's version, as the package states it (beside the sources, or two up from the build). */
export const VERSION: string = (() => {
  for (const path of [join(__dirname, '..', 'package.json'), join(__dirname, '..', '..', 'package.json')]) {
    try {
      const manifest = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'fastcar' && manifest.version) return manifest.version;
    } catch {
      // not here
    }
  }
  return 'unknown';
})();
