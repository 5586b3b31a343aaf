// The house's import rules, read from the sources: no import circle in src/ (type-only
// imports included, so a module's contract never leans on what uses it), rpc/ at the
// bottom (it imports nothing else of src/), and harness/
// (what benchmarks and tests share) never importing test/ (what only the tests use).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const IMPORT = /^(?:import|export)\s[^'"]*?from\s+'(\.[^']*)'/gm;

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => normalize(join(folder, file)));
}

/** Each file's relative imports, as paths from the project's root. */
function importsOf(files: string[]): Map<string, string[]> {
  const known = new Set([...files, ...sources('src'), ...sources('harness'), ...sources('test'), ...sources('devnet')]);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const [, spec] of readFileSync(join(ROOT, file), 'utf8').matchAll(IMPORT)) {
      const base = normalize(join(dirname(file), spec));
      const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => known.has(candidate));
      if (found) targets.push(found);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The import circles among `graph`'s files (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || graph.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

it('finds a circle when there is one (the check itself)', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  expect(
    circles(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
      ]),
    ),
  ).toEqual([]);
});

it('has no import circle in src/, type-only imports included', () => {
  const graph = importsOf(sources('src'));
  // The sources were read: every file, and the imports among them.
  expect(graph.size).toBeGreaterThan(100);
  expect([...graph.values()].reduce((sum, targets) => sum + targets.length, 0)).toBeGreaterThan(graph.size);
  expect(circles(graph)).toEqual([]);
});

it('keeps rpc/ at the bottom: it imports nothing of src/ outside it', () => {
  const graph = importsOf(sources('src/rpc'));
  const outside = [...graph].flatMap(([file, targets]) =>
    targets.filter((target) => !target.startsWith(normalize('src/rpc/'))).map((target) => `${file} -> ${target}`),
  );
  expect(outside).toEqual([]);
});

it('never imports test/ from harness/ (what benchmarks share does not lean on what only tests use)', () => {
  const graph = importsOf(sources('harness'));
  const intoTests = [...graph].flatMap(([file, targets]) =>
    targets.filter((target) => target.startsWith(normalize('test/'))).map((target) => `${file} -> ${target}`),
  );
  expect(intoTests).toEqual([]);
});
