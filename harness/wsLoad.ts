// Load over WebSockets, as autocannon gives it over HTTP: `connections` sockets,
// each sending one message and waiting for its answer before the next, for a
// fixed time, from a process of its own (so that the generator's work is not
// counted against the server's event loop).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const GENERATOR = `
const { WebSocket } = require('ws');
const [url, message, connections, seconds] = [process.argv[1], process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
let answered = 0;
let errors = 0;
let measuring = false;
const sockets = [];
const one = () => new Promise((resolve) => {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  sockets.push(socket);
  socket.on('open', () => { socket.send(message); resolve(); });
  socket.on('message', (data) => {
    if (measuring) answered++;
    if (data.toString().includes('"error"')) errors++;
    socket.send(message);
  });
  socket.on('error', () => { errors++; resolve(); });
});
Promise.all(Array.from({ length: connections }, one)).then(() => {
  // A second of warm-up, then the measured time.
  setTimeout(() => {
    measuring = true;
    const started = performance.now();
    setTimeout(() => {
      measuring = false;
      const elapsed = (performance.now() - started) / 1000;
      process.stdout.write(JSON.stringify({ perSecond: Math.round(answered / elapsed), errors }));
      for (const socket of sockets) socket.terminate();
      process.exit(0);
    }, seconds * 1000);
  }, 1000);
});
`;

export interface WsLoadResult {
  perSecond: number;
  /** Answers that were JSON-RPC errors, and sockets that failed. */
  errors: number;
}

export function wsLoad(url: string, message: string, connections: number, seconds: number): Promise<WsLoadResult> {
  const child = spawn(process.execPath, ['-e', GENERATOR, url, message, String(connections), String(seconds)], {
    cwd: join(__dirname, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as WsLoadResult) : reject(new Error(`WebSocket load exited with ${code}`))));
  });
}
