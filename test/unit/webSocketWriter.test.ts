// The proxy's WebSocket writer over a real connection: the answers it is
// handed in one turn leave in one write (a client then reads them at once),
// whole and in order, big ones fragmented as before.
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

import { CHUNK_CHARS, Outgoing, WebSocketWriter } from '../../src/proxy/outgoing';
import { countSocketWrites } from '../support/socketWrites';

let server: WebSocketServer;
let client: WebSocket;
let serverSide: { socket: WebSocket; req: IncomingMessage };
let received: string[];

beforeEach(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[WebSocket, IncomingMessage]>;
  client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  received = [];
  client.on('message', (data) => received.push(data.toString()));
  await once(client, 'open');
  const [socket, req] = await accepted;
  serverSide = { socket, req };
});

afterEach(async () => {
  client.terminate();
  for (const socket of server.clients) socket.terminate();
  await new Promise((resolve) => server.close(resolve));
});

async function writeTurn(writer: WebSocketWriter, messages: string[]): Promise<number> {
  const writes = countSocketWrites((server.address() as AddressInfo).port, 'local');
  try {
    for (const message of messages) writer.send(Outgoing.of(message));
    const end = Date.now() + 5000;
    while (received.length < messages.length && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
    return writes.count;
  } finally {
    writes.restore();
  }
}

const answers = Array.from({ length: 10 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, result: `0x${String(i).repeat(64)}` }));

it('sends the answers of one turn in one write, whole and in order', async () => {
  const writer = new WebSocketWriter(serverSide.socket, { highWaterBytes: 256 * 1024, tcp: serverSide.req.socket, onChange: () => undefined });
  expect(await writeTurn(writer, answers)).toBe(1);
  expect(received).toEqual(answers);
  expect(writer.pending).toBe(0);
});

it('without the connection to cork, writes each answer on its own', async () => {
  const writer = new WebSocketWriter(serverSide.socket, { highWaterBytes: 256 * 1024, onChange: () => undefined });
  expect(await writeTurn(writer, answers)).toBe(answers.length);
  expect(received).toEqual(answers);
});

it('still sends an answer bigger than a chunk as one message, after the small ones of its turn', async () => {
  const writer = new WebSocketWriter(serverSide.socket, { highWaterBytes: 256 * 1024, tcp: serverSide.req.socket, onChange: () => undefined });
  const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', result: 'x'.repeat(CHUNK_CHARS * 5) });
  await writeTurn(writer, [answers[0], big, answers[1]]);
  expect(received).toEqual([answers[0], big, answers[1]]);
  expect(writer.pending).toBe(0);
});

it('counts small answers a client does not take as pending, stalled since the last flush, and clears them once it reads', async () => {
  let changes = 0;
  const writer = new WebSocketWriter(serverSide.socket, { highWaterBytes: 256 * 1024, tcp: serverSide.req.socket, onChange: () => changes++ });
  // The client reads nothing: what the kernel's buffers do not take waits at the proxy.
  (client as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
  const small = answers[0];
  const sent = Date.now();
  // Until well past what the kernel's buffers take (they grow on loopback): then nothing leaves until the client reads.
  for (let turn = 0; turn < 500 && writer.pending < 4 * 1024 * 1024; turn++) {
    for (let i = 0; i < 2000; i++) writer.send(Outgoing.of(small));
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(writer.pending).toBeGreaterThan(4 * 1024 * 1024);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(writer.pending).toBeGreaterThan(0);
  expect(writer.stalledFor(Date.now())).toBeGreaterThanOrEqual(200);
  expect(writer.stalledFor(Date.now())).toBeLessThanOrEqual(Date.now() - sent);
  const changesBefore = changes;
  (client as unknown as { _socket: { resume(): void } })._socket.resume();
  const end = Date.now() + 10_000;
  while (writer.pending > 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(writer.pending).toBe(0);
  expect(writer.stalledFor(Date.now())).toBe(0);
  expect(changes).toBeGreaterThan(changesBefore); // the drain told the flow control
}, 20_000);
