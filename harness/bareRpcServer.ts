// The ceiling for the proxy's cached path: Node's own http server and the same
// `ws` WebSocket server the proxy uses, in a process of their own, answering
// every JSON-RPC POST and every WebSocket message with one fixed text (the bytes
// the proxy answers that call with) and doing nothing else. Whatever the proxy
// does beyond this costs it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { freePort, type Peer } from './processes';

const SERVER = `
const { createServer } = require('node:http');
const { WebSocketServer } = require('ws');
const [answer, port] = [process.argv[1], Number(process.argv[2])];
const bytes = Buffer.from(answer);
const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
    res.end(bytes);
  });
});
new WebSocketServer({ server }).on('connection', (socket) => socket.on('message', () => socket.send(answer)));
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\\n'));
// A profiler's output is written only on a clean exit.
process.on('SIGINT', () => process.exit(0));
`;

/** Answers every call with `answer` (a JSON-RPC response text), over HTTP POST and WebSocket on one port. */
export async function startBareRpcServer(answer: string, nodeArgs: readonly string[] = []): Promise<Peer & { port: number }> {
  const port = await freePort();
  // From the project's root, where `ws` resolves.
  const child = spawn(process.execPath, [...nodeArgs, '-e', SERVER, answer, String(port)], {
    cwd: join(__dirname, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`bare JSON-RPC server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGINT');
      }),
  };
}
