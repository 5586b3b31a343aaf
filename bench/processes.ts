// The benchmarks' view of processes: fastcar started from the build, as a user
// runs it, and the peak memory a process reached.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { freePort, type Peer } from '../test/support/peers';

/** VmHWM: the most resident memory the process has had, in MB (0 once it is gone). */
export function peakRssMb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

export async function startFastcarProcess(nodeUrl: string, cacheBytes: number): Promise<Peer> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'src', 'main.js')], {
    env: { ...process.env, FASTCAR_NODE_URL: nodeUrl, FASTCAR_PORT: String(port), FASTCAR_LOG_LEVEL: 'warn', FASTCAR_CACHE_MAX_BYTES: String(cacheBytes) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('fastcar ready') && resolve());
    child.once('exit', (code) => reject(new Error(`fastcar exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
