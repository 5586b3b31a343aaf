// The devnet as a user meets it: `npm run devnet` starts from the stored
// chain and says where it is; broken configuration ends in one clear line.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadRuntime } from '../devnet/genesis';
import { storedChainIsCurrent } from '../devnet/cli';
import { freePort } from '../harness/processes';

const root = join(__dirname, '..');

function runDevnet(env: Record<string, string>, stopWhen: RegExp | null, timeoutMs = 90_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'devnet/cli.ts', 'serve'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'error', ...env },
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stopWhen?.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

it('the committed runtime is the one whose sha256 is recorded', () => {
  expect(loadRuntime().sha256).toMatch(/^[0-9a-f]{64}$/);
});

it('the stored seeded chain is current, so no test run has to seed', () => {
  expect(storedChainIsCurrent()).toBe(true);
});

// The `npm run devnet` processes below wait mostly on their own start: they run side by side.
it.concurrent('npm run devnet prints the WebSocket URL and the seeded block range', async () => {
  const port = await freePort();
  const { stdout } = await runDevnet({ DEVNET_PORT: String(port) }, /devnet ready/);
  expect(stdout).toMatch(new RegExp(`devnet ready in [\\d.]+s: ws://127\\.0\\.0\\.1:${port} .*blocks 0-\\d+`));
}, 120_000);

describe('bad configuration ends with one line that says what to do', () => {
  const oneLine = (stderr: string) => stderr.split('\n').filter((line) => line.trim() && !line.includes('npm warn'));

  it.concurrent('a port that is taken', async () => {
    const port = await freePort();
    const blocker: Server = createServer().listen(port, '127.0.0.1');
    try {
      const { code, stderr } = await runDevnet({ DEVNET_PORT: String(port) }, null);
      expect(code).toBe(1);
      expect(oneLine(stderr)).toEqual([`error: port ${port} on 127.0.0.1 is taken: stop what uses it or set DEVNET_PORT to a free port`]);
    } finally {
      blocker.close();
    }
  }, 120_000);

  it.concurrent('a port that is not a number', async () => {
    const { code, stderr } = await runDevnet({ DEVNET_PORT: 'http' }, null);
    expect(code).toBe(1);
    expect(oneLine(stderr)).toEqual(['error: DEVNET_PORT=http is not a port number: use a whole number from 0 to 65535']);
  }, 120_000);

  it.concurrent('a corrupt chain database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fastcar-corrupt-'));
    const db = join(dir, 'devnet.sqlite');
    writeFileSync(db, 'this is not a sqlite database '.repeat(200));
    const { code, stderr } = await runDevnet({ DEVNET_DB_PATH: db, DEVNET_PORT: '0' }, null);
    expect(code).toBe(1);
    const lines = oneLine(stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: the devnet database .* cannot be read .*: delete it and run "npm run devnet:seed"/);
  }, 120_000);

  it.concurrent('a missing runtime file', async () => {
    const { code, stderr } = await runDevnet({ DEVNET_RUNTIME_PATH: join(tmpdir(), 'no-such-runtime.wasm'), DEVNET_PORT: '0' }, null);
    expect(code).toBe(1);
    const lines = oneLine(stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: runtime file missing .*git checkout devnet\/runtime/);
  }, 120_000);
});

it('has the same blocks at heights 0 and 1 on every start, #1 being the parent of #2', async () => {
  const { startDevnet } = await import('./support/devnet');
  const seen: string[] = [];
  for (let start = 0; start < 3; start++) {
    const { devnet } = await startDevnet();
    try {
      const call = (method: string, params: unknown[]) =>
        fetch(devnet.httpUrl, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
          .then((r) => r.json() as Promise<{ result: unknown }>)
          .then((r) => r.result);
      const [zero, one, two] = (await Promise.all([0, 1, 2].map((n) => call('chain_getBlockHash', [n])))) as string[];
      const second = (await call('chain_getHeader', [two])) as { parentHash: string };
      expect(second.parentHash).toBe(one);
      seen.push(`${zero} ${one}`);
    } finally {
      await devnet.close();
    }
  }
  expect(new Set(seen).size).toBe(1);
}, 120_000);
