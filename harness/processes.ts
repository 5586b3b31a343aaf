// Processes the tests and the benchmarks both start: the reference sidecar,
// Redis, fastcar and the proxy in processes of their own, as users run them;
// free ports; the memory a process reached. One home, so that test/ and bench/
// need not import each other.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

import { NODE_FLAGS } from '../src/nodeFlags';

const ROOT = join(__dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms`);
}

export interface Peer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    // fastcar gives its own stop 10 s before it exits anyway; a busy machine's close can take seconds.
    setTimeout(() => child.kill('SIGKILL'), 12_000).unref();
  });
}

/**
 * Resolves once `child` has printed `text` on its stdout (found across chunks); rejects with
 * `exited(code)` if it exits first. Its stdout is read to the end either way: a child
 * writing to a pipe nobody reads would block.
 */
function untilPrinted(child: ChildProcess, text: string, exited: (code: number | null) => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    let tail = '';
    let found = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      if (found) return;
      const seen = tail + chunk.toString();
      found = seen.includes(text);
      if (found) resolve();
      else tail = seen.slice(-text.length);
    });
    child.once('exit', (code) => reject(exited(code)));
  });
}

/**
 * polkadot-rest-api, sidecar's Rust successor, from a binary the user built
 * (`cargo build --release` in its repository): its routes are under /v1. Not a
 * dependency of this project: benches that compare with it skip it when PRAPI_BIN is unset.
 */
export async function startPrapi(binary: string, nodeUrl: string): Promise<Peer> {
  const port = await freePort();
  const child = spawn(binary, [], {
    env: { ...process.env, SAS_SUBSTRATE_URL: nodeUrl, SAS_EXPRESS_PORT: String(port), SAS_EXPRESS_BIND_HOST: '127.0.0.1', SAS_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor('polkadot-rest-api', async () => (await fetch(`${url}/v1/blocks/head/header`)).ok, 180_000, child);
  return { url, pid: child.pid ?? 0, stop: () => stopChild(child) };
}

/** utime + stime of a running process so far, in ms (Linux: /proc). */
export function processCpuMs(pid: number): number {
  const { user, system } = processCpuSplitMs(pid);
  return user + system;
}

/** The same, in user space and in the kernel (system calls: sockets, epoll) apart. */
export function processCpuSplitMs(pid: number): { user: number; system: number } {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU time per thread of a process, in ms: the main thread as `main`, the others (V8's workers, libuv's pool) by name. */
export function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const { user, system } = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
      byName.set(name, (byName.get(name) ?? 0) + user + system);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

/** utime and stime of a /proc stat file (a process's or a thread's), in ms. */
function statCpuMs(path: string): { user: number; system: number } {
  const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
  const ms = (ticks: string) => (Number(ticks) * 1000) / CLOCK_TICKS_PER_SECOND;
  return { user: ms(fields[11]), system: ms(fields[12]) };
}

/** USER_HZ: what /proc counts CPU time in, 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Where each reference sidecar's entry point is: 18 from the npm registry, 20 as scripts/ensure-sidecar20.sh installs it. */
const SIDECAR_MAIN = {
  18: () => join(require.resolve('@substrate/api-sidecar/package.json'), '..', 'build', 'src', 'main.js'),
  20: () => {
    const main = join(ROOT, '.cache', 'sidecar20', 'build', 'src', 'main.js');
    if (!existsSync(main))
      throw new Error(`sidecar 20 is not installed at ${main}: run bash scripts/ensure-sidecar20.sh (npm test and the benches that need it do)`);
    return main;
  },
};

/**
 * A reference sidecar, its own process, pointed at `nodeUrl`; `env` adds to its
 * environment. 18 by default (the block routes' reference since the start); 20.14.1,
 * sidecar's final line, for the routes 18 lacks or answers otherwise.
 */
export async function startSidecar(nodeUrl: string, readyPath = '/blocks/0/header', env: Record<string, string> = {}, version: 18 | 20 = 18): Promise<Peer> {
  const port = await freePort();
  const main = SIDECAR_MAIN[version]();
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, SAS_SUBSTRATE_URL: nodeUrl, SAS_EXPRESS_PORT: String(port), SAS_EXPRESS_BIND_HOST: '127.0.0.1', SAS_LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  // Far from its node (a delayed provider) on a busy machine, its start takes a while.
  await waitFor('sidecar', async () => (await fetch(url + readyPath)).ok, 180_000, child);
  return { url, pid: child.pid ?? 0, stop: () => stopChild(child) };
}

/** A redis-server of its own; on `port` when given (one started again where another was stopped). */
export async function startRedis(at?: number): Promise<Peer & { port: number }> {
  const port = at ?? (await freePort());
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(
    'redis-server',
    () =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.end();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
    10_000,
    child,
  );
  return { url, port, pid: child.pid ?? 0, stop: () => stopChild(child) };
}

/** The caching JSON-RPC proxy in a process of its own (from source), as an operator runs it. */
/** The proxy in a process of its own; with no `upstreams` they come from its `args` (`--config FILE`). */
export async function startProxyProcess(
  upstreams: string[],
  env: Record<string, string> = {},
  args: string[] = [],
  launch: Pick<FastcarLaunch, 'nodeArgs'> & { fromBuild?: boolean } = {},
): Promise<Peer & { port: number; child: ChildProcess }> {
  const port = await freePort();
  const named = upstreams.length > 0 ? { PROXY_UPSTREAMS: upstreams.join(',') } : {};
  // Tests run the sources (they do not build); a bench runs what a user runs, the build.
  const main = launch.fromBuild ? [join(ROOT, 'dist', 'src', 'main.js')] : ['--import', 'tsx', join(ROOT, 'src', 'main.ts')];
  const child = spawn(process.execPath, [...NODE_FLAGS, ...(launch.nodeArgs ?? []), ...main, 'proxy', ...args], {
    env: { ...process.env, ...named, PROXY_PORT: String(port), PROXY_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await untilPrinted(child, 'proxy ready', (code) => new Error(`proxy exited with ${code}: ${stderr}`));
  return { url: `http://127.0.0.1:${port}`, port, pid: child.pid ?? 0, child, stop: () => stopChild(child) };
}

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

export interface FastcarLaunch {
  /** From the TypeScript sources (tsx) rather than dist/. */
  fromSource?: boolean;
  /** Another build's main.js (say, a worktree of an older commit), for an A/B comparison. */
  main?: string;
  /** Node flags beyond fastcar's own (a profiler's, say). */
  nodeArgs?: readonly string[];
}

/**
 * fastcar in a process of its own, as a user runs it: from the build, or from the
 * TypeScript sources (for tests, which do not build).
 */
export async function startFastcarProcess(
  nodeUrl: string,
  env: Record<string, string> = {},
  launch: FastcarLaunch = {},
): Promise<Peer & { metricsUrl: string; child: ChildProcess }> {
  const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
  const args = launch.fromSource ? ['--import', 'tsx', join(ROOT, 'src', 'main.ts')] : [launch.main ?? join(ROOT, 'dist', 'src', 'main.js')];
  // BENCH_FASTCAR_NODE_ARGS: flags for fastcar's node (V8's among them), to try a setting out in a bench.
  const tried = (process.env.BENCH_FASTCAR_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...NODE_FLAGS, ...tried, ...(launch.nodeArgs ?? []), ...args], {
    // The extrinsic index off unless asked for, as in harness/fastcar.ts.
    env: {
      ...process.env,
      FASTCAR_NODE_URL: nodeUrl,
      FASTCAR_PORT: String(port),
      FASTCAR_METRICS_PORT: String(metricsPort),
      FASTCAR_LOG_LEVEL: 'warn',
      FASTCAR_EXTRINSIC_INDEX_BLOCKS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // BENCH_FASTCAR_STDOUT: a file to keep its output in (V8's --trace-* flags print there).
  if (process.env.BENCH_FASTCAR_STDOUT) child.stdout.pipe(createWriteStream(process.env.BENCH_FASTCAR_STDOUT, { flags: 'a' }));
  await untilPrinted(child, 'fastcar ready', (code) => new Error(`fastcar exited with ${code}`));
  return { url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}`, pid: child.pid ?? 0, child, stop: () => stopChild(child) };
}

/**
 * `npm start` from the sources, its own process: `env` replaces the environment's node
 * settings; resolves once it prints `readyText`. `stop` sends SIGTERM and waits for it.
 * `nodeFlags`: what node is started with (npm start's flags unless told otherwise).
 * `output()`: all it has printed so far.
 */
export async function startMainProcess(
  env: Record<string, string>,
  readyText: string,
  nodeFlags: readonly string[] = NODE_FLAGS,
): Promise<Peer & { child: ChildProcess; output: () => string }> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of ['FASTCAR_NODE_URL', 'SAS_SUBSTRATE_URL', 'FASTCAR_RELAY_URL', 'SAS_SUBSTRATE_MULTI_CHAIN_URL']) delete base[name];
  // Metrics on a free port, never the fixed default another run may hold.
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', join(ROOT, 'src', 'main.ts')], {
    env: { ...base, FASTCAR_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () => stopChild(child);
  // Everything it prints is kept, for a test to read what it logged.
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await untilPrinted(child, readyText, (code) => new Error(`main.ts exited with ${code}`));
  return { url: `http://127.0.0.1:${env.FASTCAR_PORT}`, pid: child.pid ?? 0, stop, child, output: () => out };
}
