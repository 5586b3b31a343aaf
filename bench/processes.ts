// The benchmarks' view of processes: fastcar started from the build, as a user
// runs it, and the peak memory a process reached.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { freePort, type Peer } from '../test/support/peers';

function statusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** VmHWM: the most resident memory the process has had, in MB (0 once it is gone). */
export const peakRssMb = (pid: number) => statusMb(pid, 'VmHWM');
/** VmRSS: resident memory now, in MB (0 once the process is gone). */
export const rssMb = (pid: number) => statusMb(pid, 'VmRSS');

/**
 * fastcar in a process of its own, as a user runs it: from the build, or from the
 * TypeScript sources (for tests, which do not build).
 */
export async function startFastcarProcess(nodeUrl: string, env: Record<string, string> = {}, fromSource = false): Promise<Peer> {
  const port = await freePort();
  const root = join(__dirname, '..');
  const args = fromSource ? ['--import', 'tsx', join(root, 'src', 'main.ts')] : [join(root, 'dist', 'src', 'main.js')];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, FASTCAR_NODE_URL: nodeUrl, FASTCAR_PORT: String(port), FASTCAR_LOG_LEVEL: 'warn', ...env },
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
