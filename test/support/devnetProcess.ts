// The seeded devnet in a process of its own (`npm run devnet`), for tests in
// which a node must go away as a node does: its process ends and its
// connections close. Two of them share no chopsticks state, as two nodes share
// none.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { freePort } from '../../harness/processes';

export interface DevnetProcess {
  wsUrl: string;
  /** Ends the process (SIGTERM: it removes its scratch copy of the chain) and waits for it. */
  stop(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');

export async function startDevnetProcess(timeoutMs = 180_000): Promise<DevnetProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'devnet/cli.ts', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DEVNET_PORT: String(port), LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the devnet did not start within ${timeoutMs} ms: ${output.slice(-500)}`));
    }, timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (/devnet ready/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the devnet exited with code ${code}: ${output.slice(-500)}`));
    });
  });
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
