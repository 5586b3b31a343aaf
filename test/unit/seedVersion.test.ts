import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { codeLines, seedVersion } from '../../devnet/seedVersion';

describe('seed version', () => {
  const source = ['// why this is done', 'const a = 1; // kept: code with a comment', '', '/**', ' * docs', ' */', 'export const b = a + 1;'].join('\n');

  it('counts code, not comments or blank lines', () => {
    expect(codeLines(source)).toBe('const a = 1; // kept: code with a comment\nexport const b = a + 1;');
    expect(codeLines(source.replace('why this is done', 'reworded'))).toBe(codeLines(source));
    expect(codeLines(source.replace('a + 1', 'a + 2'))).not.toBe(codeLines(source));
  });

  it('matches the committed chain, so no test run has to reseed it', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'devnet', 'chain', 'manifest.json'), 'utf8')) as { seedVersion: string };
    expect(seedVersion()).toBe(manifest.seedVersion);
  });
});
