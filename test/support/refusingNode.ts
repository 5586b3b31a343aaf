// A WebSocket relay in front of a node that answers some methods "not found", as some
// providers do, and passes every other call through.
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

export interface RefusingNode {
  url: string;
  close(): Promise<void>;
}

export async function startRefusingNode(nodeUrl: string, refused: string[]): Promise<RefusingNode> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server.on('connection', (client) => {
    const upstream = new WebSocket(nodeUrl);
    const pending: string[] = [];
    upstream.on('open', () => {
      for (const text of pending.splice(0)) upstream.send(text);
    });
    upstream.on('message', (data) => client.send(data.toString()));
    upstream.on('close', () => client.close());
    client.on('close', () => upstream.close());
    client.on('message', (data) => {
      const text = data.toString();
      const call = JSON.parse(text) as { id?: number; method?: string };
      if (call.method && refused.includes(call.method)) {
        client.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not found' } }));
      } else if (upstream.readyState === WebSocket.OPEN) {
        upstream.send(text);
      } else {
        pending.push(text);
      }
    });
  });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
