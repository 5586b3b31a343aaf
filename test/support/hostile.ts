// Starts a hostile client (hostileClient.ts) in a process of its own and
// reads its reports; and the well-behaved client that tests set beside it,
// from a second loopback address (127.0.0.2) so that limits per address tell
// the two apart.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { WebSocket } from 'ws';

import type { Scenario } from './hostileClient';

export interface Report {
  event: string;
  [detail: string]: unknown;
}

export interface Hostile {
  reports: Report[];
  /** The first report of this event (waiting for it if it has not come yet). */
  next(event: string, timeoutMs?: number): Promise<Report>;
  stop(): Promise<void>;
}

export async function startHostile(scenario: Scenario): Promise<Hostile> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'hostileClient.ts'), JSON.stringify(scenario)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reports: Report[] = [];
  const waiters: (() => void)[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) if (line.trim()) reports.push(JSON.parse(line) as Report);
    for (const wake of waiters.splice(0)) wake();
  });
  const next = (event: string, timeoutMs = 30_000) =>
    new Promise<Report>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`the hostile client did not report '${event}' within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        const found = reports.find((report) => report.event === event) ?? reports.find((report) => report.event === 'failed');
        if (found) {
          clearTimeout(deadline);
          if (found.event === 'failed') reject(new Error(`the hostile client failed: ${String(found.message)}`));
          else resolve(found);
        } else if (child.exitCode !== null) {
          clearTimeout(deadline);
          reject(new Error(`the hostile client exited with ${child.exitCode}`));
        } else waiters.push(check);
      };
      check();
    });
  return {
    reports,
    next,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

export const WELL_BEHAVED = '127.0.0.2';

/** An HTTP request from the well-behaved address; `ms` is how long its answer took. */
export function requestFrom(url: string, method: 'GET' | 'POST', body?: string): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, localAddress: WELL_BEHAVED, agent: false, headers: body ? { 'Content-Type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function socketFrom(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { localAddress: WELL_BEHAVED, maxPayload: 256 * 1024 * 1024 });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** One call over a WebSocket, answered (by id) within `ms`. */
export function callOver(
  socket: WebSocket,
  method: string,
  params: unknown[],
  id: number,
): Promise<{ answer: { result?: unknown; error?: { code: number; message: string } }; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const answer = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { code: number; message: string } };
      if (answer.id !== id) return;
      socket.off('message', onMessage);
      resolve({ answer, ms: performance.now() - started });
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}
