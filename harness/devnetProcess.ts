// The devnet in a process of its own, as a node is: chopsticks' work (storage reads,
// the wasm executor) off the thread of the bench that measures through it, so a
// service that asks more of the node per second is not slowed by its own load
// generator; and, for tests, a node that goes away as a node does (its process ends,
// its connections close). Two of them share no chopsticks state, as two nodes share none.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { readManifest } from '../devnet/cli';
import type { SeedManifest } from '../devnet/seed';

export interface DevnetProcess {
  wsUrl: string;
  manifest: SeedManifest;
  /** Ends the process (SIGTERM: it removes its scratch copy of the chain) and waits for it. */
  close(): Promise<void>;
}

export interface DevnetProcessOptions {
  /** Added to the devnet's environment (LOG_LEVEL, say). */
  env?: Record<string, string>;
  /** How long it may take to be ready. Default 180 s. */
  timeoutMs?: number;
}

const READY = /devnet ready in [\d.]+s: (ws:\/\/\S+)/;
/** What is kept of its output, for the error when it does not start. */
const OUTPUT_TAIL = 2000;

export async function startDevnetProcess(options: DevnetProcessOptions = {}): Promise<DevnetProcess> {
  const timeoutMs = options.timeoutMs ?? 180_000;
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'devnet', 'cli.ts'), 'serve'], {
    env: { ...process.env, DEVNET_PORT: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  // Read to the end (a pipe left full would stall the devnet), the tail kept.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_TAIL);
  };
  child.stderr.on('data', keep);
  const wsUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the devnet did not start within ${timeoutMs} ms: ${output.slice(-500)}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      keep(chunk);
      seen += chunk.toString();
      const ready = READY.exec(seen);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the devnet exited with code ${code} before it was ready: ${output.slice(-500)}`));
    });
  });
  const manifest = readManifest();
  if (!manifest) throw new Error('the devnet served no manifest');
  return {
    wsUrl,
    manifest,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
