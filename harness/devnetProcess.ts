// The devnet in a process of its own, as a node is: chopsticks' work (storage reads,
// the wasm executor) off the thread of the bench that measures through it, so a
// service that asks more of the node per second is not slowed by its own load generator.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { readManifest } from '../devnet/cli';
import type { SeedManifest } from '../devnet/seed';

export interface DevnetProcess {
  wsUrl: string;
  manifest: SeedManifest;
  close(): Promise<void>;
}

const READY = /devnet ready in [\d.]+s: (ws:\/\/\S+)/;

export async function startDevnetProcess(): Promise<DevnetProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'devnet', 'cli.ts'), 'serve'], {
    env: { ...process.env, DEVNET_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const wsUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const ready = READY.exec(seen);
      if (ready) resolve(ready[1]);
    });
    child.once('exit', (code) => reject(new Error(`the devnet exited with ${code} before it was ready`)));
  });
  const manifest = readManifest();
  if (!manifest) throw new Error('the devnet served no manifest');
  return {
    wsUrl,
    manifest,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
