// Stopping an HTTP server (src/http/listen.ts closeServer): a connection a client opened
// and never sent a byte on is cut at once (Node would hold the close for the whole request
// timeout), while a request already in flight is still answered before the server is closed.
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';

import { closeServer, listen, timeoutOptions } from '../../src/http/listen';

const HOUR_MS = 3_600_000;

function openSilently(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

it('cuts a connection that never sent a request, and answers the request in flight first', async () => {
  let answerLater: (() => void) | undefined;
  const server = createServer(timeoutOptions({ headersTimeoutMs: HOUR_MS, requestTimeoutMs: HOUR_MS }), (_req, res) => {
    answerLater = () => res.end('answered');
  });
  const url = await listen(server, '127.0.0.1', 0);
  const silent = await openSilently(url);
  const silentClosed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
  const inFlight = fetch(url).then((response) => response.text());
  while (!answerLater) await new Promise((resolve) => setTimeout(resolve, 10));

  let closed = false;
  const closing = closeServer(server).then(() => (closed = true));
  // With an hour's timeouts, only closeServer can have cut it.
  await silentClosed;
  expect(closed).toBe(false);
  answerLater();
  expect(await inFlight).toBe('answered');
  await closing;
  expect(server.listening).toBe(false);
});
