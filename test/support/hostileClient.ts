// A hostile client of the proxy, run in a process of its own (see hostile.ts):
// its own memory and CPU are not the proxy's, and the proxy's own process
// shows what the attack cost it. It takes one scenario as JSON in argv[2],
// connects from 127.0.0.1, and reports what it saw as JSON lines on stdout.
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';

export type Scenario =
  /** HTTP connections that each send `requests` pipelined POSTs of `body` and never read an answer. */
  | { kind: 'http-unread'; port: number; connections: number; requests: number; body: Body }
  /** WebSockets that each send `messages` copies of `body` and never read; unsolicited pongs every 100 ms. */
  | { kind: 'ws-unread'; port: number; connections: number; messages: number; body: Body }
  /** WebSockets that read everything, answer no ping, and send unsolicited pongs every 100 ms. */
  | { kind: 'ws-fake-pongs'; port: number; connections: number }
  /** HTTP connections that each send one `body`, read the answers, and leave after `leaveAfterMs`. */
  | { kind: 'http-then-leave'; port: number; connections: number; body: Body; leaveAfterMs: number }
  /** As many idle WebSockets as it may open (answering pings, as any library does). */
  | { kind: 'ws-hold'; port: number; connections: number }
  /** WebSockets that each subscribe to `perConnection` distinct storage keys. */
  | { kind: 'ws-subscribe'; port: number; connections: number; perConnection: number }
  /** `batches` HTTP batches of `body` calls, one after another, each batch's calls distinct. */
  | { kind: 'http-fill'; port: number; batches: number; body: Body };

/**
 * Calls to send: `count` calls of `method`, each with `params` where the string `$i`
 * becomes a 32-byte hex number unique to the call (from `offset`); one call, or a batch.
 */
export interface Body {
  method: string;
  params: unknown[];
  count: number;
  batch: boolean;
  offset?: number;
}

const unique = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

function render(body: Body, round = 0): string {
  const calls = Array.from({ length: body.count }, (_, i) => {
    const n = (body.offset ?? 0) + round * body.count + i;
    return { jsonrpc: '2.0', id: i, method: body.method, params: body.params.map((p) => (p === '$i' ? unique(n) : p)) };
  });
  return JSON.stringify(body.batch ? calls : calls[0]);
}

const report = (event: string, details: object = {}) => process.stdout.write(`${JSON.stringify({ event, ...details })}\n`);

function openTcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function openWs(port: number, options: { autoPong?: boolean } = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, { maxPayload: 256 * 1024 * 1024, ...options });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

const post = (text: string) => `POST / HTTP/1.1\r\nHost: proxy\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;

async function main(scenario: Scenario): Promise<void> {
  const started = Date.now();
  switch (scenario.kind) {
    case 'http-unread': {
      const text = render(scenario.body);
      for (let c = 0; c < scenario.connections; c++) {
        const socket = await openTcp(scenario.port);
        socket.on('error', () => undefined);
        socket.on('close', () => report('closed', { afterMs: Date.now() - started }));
        socket.pause();
        for (let r = 0; r < scenario.requests; r++) socket.write(post(text));
      }
      report('ready');
      break;
    }
    case 'ws-unread': {
      const text = render(scenario.body);
      for (let c = 0; c < scenario.connections; c++) {
        const socket = await openWs(scenario.port);
        socket.on('error', () => undefined);
        socket.pause();
        for (let m = 0; m < scenario.messages; m++) socket.send(text);
        setInterval(() => socket.readyState === socket.OPEN && socket.pong(Buffer.from('unasked')), 100);
      }
      report('ready');
      break;
    }
    case 'ws-fake-pongs': {
      for (let c = 0; c < scenario.connections; c++) {
        const socket = await openWs(scenario.port, { autoPong: false });
        socket.on('error', () => undefined);
        const pongs = setInterval(() => socket.readyState === socket.OPEN && socket.pong(Buffer.from('unasked')), 100);
        socket.on('close', () => {
          clearInterval(pongs);
          report('closed', { afterMs: Date.now() - started });
        });
      }
      report('ready');
      break;
    }
    case 'http-then-leave': {
      const sockets: Socket[] = [];
      for (let c = 0; c < scenario.connections; c++) {
        const socket = await openTcp(scenario.port);
        socket.on('error', () => undefined);
        socket.on('data', () => undefined);
        socket.write(post(render(scenario.body, c)));
        sockets.push(socket);
      }
      report('ready');
      setTimeout(() => {
        for (const socket of sockets) socket.destroy();
        report('left');
      }, scenario.leaveAfterMs);
      break;
    }
    case 'ws-hold': {
      let opened = 0;
      let refused = 0;
      let closed = 0;
      await Promise.all(
        Array.from({ length: scenario.connections }, async () => {
          try {
            const socket = await openWs(scenario.port);
            opened += 1;
            socket.on('error', () => undefined);
            socket.on('close', () => report('closed', { count: ++closed, afterMs: Date.now() - started }));
          } catch {
            refused += 1;
          }
        }),
      );
      report('ready', { opened, refused });
      break;
    }
    case 'ws-subscribe': {
      let ok = 0;
      const errors: number[] = [];
      let key = 0;
      await Promise.all(
        Array.from({ length: scenario.connections }, async () => {
          const socket = await openWs(scenario.port);
          socket.on('error', () => undefined);
          for (let i = 0; i < scenario.perConnection; i++) {
            const id = key++;
            const answer = await new Promise<{ result?: unknown; error?: { code: number } }>((resolve) => {
              const onMessage = (data: Buffer) => {
                const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { code: number } };
                if (message.id !== id) return;
                socket.off('message', onMessage);
                resolve(message);
              };
              socket.on('message', onMessage);
              socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'state_subscribeStorage', params: [[`0xbad0${id.toString(16).padStart(8, '0')}`]] }));
            });
            if (typeof answer.result === 'string') ok += 1;
            else errors.push(answer.error?.code ?? 0);
          }
        }),
      );
      report('ready', { ok, errors });
      break;
    }
    case 'http-fill': {
      for (let b = 0; b < scenario.batches; b++) {
        const response = await fetch(`http://127.0.0.1:${scenario.port}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: render(scenario.body, b),
        });
        await response.arrayBuffer();
      }
      report('ready');
      break;
    }
  }
}

// Alive until the test stops it. A paused socket with nothing left to write holds no event loop
// open: once the proxy had taken all of a client's requests into its buffers the process ended,
// its connections were reset, and the proxy saw a client that left, not one that reads nothing.
setInterval(() => undefined, 60_000);

main(JSON.parse(process.argv[2]) as Scenario).catch((error: unknown) => {
  report('failed', { message: (error as Error).message });
  process.exit(1);
});
