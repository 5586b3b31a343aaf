// Starts the real things the tests and benchmarks talk to: the devnet, the
// reference substrate-api-sidecar, fastcar itself, and a Redis server.
import '../../devnet/quiet';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';


import { serveStoredChain } from '../../devnet/cli';
import type { Devnet } from '../../devnet/chain';
import type { SeedManifest } from '../../devnet/seed';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startFastcar, type Fastcar } from '../../src/server';

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

export async function startDevnet(): Promise<{ devnet: Devnet; manifest: SeedManifest }> {
  return serveStoredChain(0);
}

export interface Peer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}

/** The reference: @substrate/api-sidecar 18, its own process, pointed at `nodeUrl`. */
export async function startSidecar(nodeUrl: string): Promise<Peer> {
  const port = await freePort();
  const main = join(require.resolve('@substrate/api-sidecar/package.json'), '..', 'build', 'src', 'main.js');
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, SAS_SUBSTRATE_URL: nodeUrl, SAS_EXPRESS_PORT: String(port), SAS_EXPRESS_BIND_HOST: '127.0.0.1', SAS_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor('sidecar', async () => (await fetch(`${url}/blocks/0/header`)).ok, 60_000, child);
  return { url, pid: child.pid ?? 0, stop: () => stopChild(child) };
}

export async function startRedis(): Promise<Peer & { port: number }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(
    'redis-server',
    () =>
      new Promise((resolve) => {
        const socket = require('node:net').connect(port, '127.0.0.1');
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
export async function startProxyProcess(upstreams: string[], env: Record<string, string> = {}): Promise<Peer & { port: number; child: ChildProcess }> {
  const port = await freePort();
  const root = join(__dirname, '..', '..');
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'main.ts'), 'proxy'], {
    env: { ...process.env, PROXY_UPSTREAMS: upstreams.join(','), PROXY_PORT: String(port), PROXY_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('proxy ready') && resolve());
    child.once('exit', (code) => reject(new Error(`proxy exited with ${code}: ${stderr}`)));
  });
  return { url: `http://127.0.0.1:${port}`, port, pid: child.pid ?? 0, child, stop: () => stopChild(child) };
}

export async function startFastcarOn(nodeUrl: string, env: Record<string, string> = {}): Promise<Fastcar> {
  const config = loadConfig({ FASTCAR_PORT: '0', FASTCAR_LOG_LEVEL: 'silent', ...env });
  return startFastcar({ ...config, nodeUrl }, createLogger(config.logLevel));
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}
