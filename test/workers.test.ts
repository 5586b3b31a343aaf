// WORKERS=2: two server processes share the port; both answer, and a stop
// signal takes the whole group down.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import type { Devnet } from '../devnet/chain';
import { startDevnet } from './support/devnet';
import { getJson } from '../harness/http';
import { freePort, startMainProcess } from '../harness/processes';
import { NODE_FLAGS } from '../src/nodeFlags';

let devnet: Devnet;

beforeAll(async () => {
  ({ devnet } = await startDevnet());
}, 120_000);

afterAll(async () => {
  await devnet?.close();
});

it("runs the configured number of workers on one port, with fastcar's node flags, and stops them all", async () => {
  const port = await freePort();
  let workers: number[] = [];
  // The primary started as a bare `node main.js` would be: its workers get the flags all the same.
  const main = await startMainProcess(
    { WORKERS: '2', FASTCAR_NODE_URL: devnet.wsUrl, FASTCAR_PORT: String(port), FASTCAR_LOG_LEVEL: 'warn' },
    'fastcar ready: 2 workers',
    [],
  );
  const { child } = main;
  try {
    workers = execFileSync('pgrep', ['-P', String(child.pid), '-f', 'main.ts'])
      .toString()
      .trim()
      .split('\n')
      .map(Number);
    expect(workers).toHaveLength(2);
    for (const pid of workers) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining([...NODE_FLAGS]));
    const answers = await Promise.all(Array.from({ length: 10 }, () => getJson(`http://127.0.0.1:${port}/blocks/3/header`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
  } finally {
    await main.stop();
  }
  // The stop signal took the whole group down, the primary last: it waits for its workers' own close.
  expect(workers.filter(isAlive)).toEqual([]);
}, 120_000);

it("warns when a single process runs without fastcar's node flags, and only then", async () => {
  const started = async (nodeFlags: readonly string[]) => {
    const port = await freePort();
    // One process (the warning is the primary's only there), logging at info: its other lines show the log was read.
    const main = await startMainProcess(
      { WORKERS: '1', FASTCAR_WORKERS: '1', FASTCAR_NODE_URL: devnet.wsUrl, FASTCAR_PORT: String(port), FASTCAR_LOG_LEVEL: 'info' },
      'fastcar ready',
      nodeFlags,
    );
    // All it printed is in once its output closes, after it exits.
    const closed = new Promise((resolve) => main.child.once('close', resolve));
    await main.stop();
    await closed;
    // It stopped on its own (its log flushed), never killed: the stop signal, sent as soon as it said it was ready, found its handler.
    expect([main.child.signalCode, main.child.exitCode]).toEqual([null, 0]);
    return main.output();
  };
  const [bare, flagged] = await Promise.all([started([]), started(NODE_FLAGS)]);
  for (const output of [bare, flagged]) expect(output).toContain('fastcar listening');
  expect(bare).toContain("without fastcar's flags");
  expect(bare).toContain(NODE_FLAGS[0]);
  expect(flagged).not.toContain("without fastcar's flags");
}, 120_000);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
