// The ceiling for the warm path: Node's own http server in a process of its own
// (as fastcar runs in one), answering each URL with fixed bytes read from a file
// and nothing else. Whatever fastcar does beyond this costs it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort, type Peer } from './processes';

const SERVER = `
const { createServer } = require('node:http');
const answers = new Map(Object.entries(JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'))).map(([url, body]) => [url, Buffer.from(body)]));
createServer((req, res) => {
  const body = answers.get(req.url);
  if (!body) return res.writeHead(404).end();
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}).listen(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write('listening\\n'));
`;

/** Serves `answers` (URL -> JSON text) from a bare server process. */
export async function startBareServer(answers: Record<string, string>): Promise<Peer> {
  const dir = mkdtempSync(join(tmpdir(), 'fastcar-bare-'));
  const file = join(dir, 'answers.json');
  writeFileSync(file, JSON.stringify(answers));
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', SERVER, file, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
