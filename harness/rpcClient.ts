// A minimal JSON-RPC client over WebSocket, for harness code that must see the
// node's answers as they come (raw fetch timings, building test blocks),
// without a library in between.
import { WebSocket } from 'ws';

export interface RpcClient {
  call<T>(method: string, params?: unknown[]): Promise<T>;
  close(): void;
}

export async function connectRpc(url: string): Promise<RpcClient> {
  const socket = new WebSocket(url, { maxPayload: 256 * 1024 * 1024 });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let nextId = 0;
  const pending = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id: number; result?: unknown; error?: unknown };
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    // As fastcar's own client does (src/rpc/wsRpcClient.ts): the node's next answer is not held for a delayed acknowledgement.
    if (pending.size > 0) socket.pong();
    if (message.error) waiting.reject(new Error(JSON.stringify(message.error)));
    else waiting.resolve(message.result);
  });
  return {
    call<T>(method: string, params: unknown[] = []): Promise<T> {
      const id = ++nextId;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    },
    close: () => socket.close(),
  };
}
