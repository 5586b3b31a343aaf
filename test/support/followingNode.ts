// A node that keeps chainHead follows as Substrate does and chopsticks does
// not: a follow is known only on the connection that opened it (a call naming
// it on another connection finds nothing), and one connection holds at most
// four. It can end a follow with `stop`, or drop a connection, as a node may.
import { WebSocketServer, type WebSocket } from 'ws';

export interface FollowingNode {
  url: string;
  /** Follows held on each open connection. */
  followsPerConnection(): number[];
  /** Calls by method, over all connections. */
  calls: Map<string, number>;
  /** Sends `{"event":"stop"}` on the follow the node knows as `followId` and forgets it. */
  stop(followId: string): void;
  /** Closes the connection holding `followId`, as a node restarting it would. */
  dropConnectionOf(followId: string): void;
  close(): Promise<void>;
}

const HASH = `0x${'11'.repeat(32)}`;
/** Substrate's default limit of follows on one connection. */
const MAX_FOLLOWS = 4;

export async function startFollowingNode(): Promise<FollowingNode> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const held = new Map<WebSocket, Set<string>>();
  const calls = new Map<string, number>();
  let nextFollow = 1;
  let nextOperation = 1;
  const notify = (socket: WebSocket, subscription: string, result: unknown) =>
    socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'chainHead_v1_followEvent', params: { subscription, result } }));
  const holderOf = (followId: string) => [...held].find(([, follows]) => follows.has(followId))?.[0];

  server.on('connection', (socket) => {
    const follows = new Set<string>();
    held.set(socket, follows);
    socket.on('close', () => held.delete(socket));
    socket.on('message', (data) => {
      const { id, method, params = [] } = JSON.parse(String(data)) as { id: number; method: string; params?: unknown[] };
      calls.set(method, (calls.get(method) ?? 0) + 1);
      const reply = (result: unknown) => socket.send(JSON.stringify({ jsonrpc: '2.0', id, result }));
      const mine = follows.has(String(params[0]));
      switch (method) {
        case 'chain_getHeader':
          return reply({ parentHash: HASH, number: '0x10', stateRoot: HASH, extrinsicsRoot: HASH, digest: { logs: [] } });
        case 'chain_getFinalizedHead':
          return reply(HASH);
        case 'chainHead_v1_follow': {
          if (follows.size >= MAX_FOLLOWS)
            return socket.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32800, message: 'Maximum number of chainHead_follow has been reached' } }));
          const followId = `follow-${nextFollow++}`;
          follows.add(followId);
          reply(followId);
          return notify(socket, followId, { event: 'initialized', finalizedBlockHashes: [HASH] });
        }
        case 'chainHead_v1_header':
          return reply(mine ? '0x00' : null);
        case 'chainHead_v1_body': {
          if (!mine) return reply({ result: 'limitReached' });
          const operationId = `op-${nextOperation++}`;
          reply({ result: 'started', operationId });
          return notify(socket, String(params[0]), { event: 'operationBodyDone', operationId, value: [] });
        }
        case 'chainHead_v1_unfollow':
          follows.delete(String(params[0]));
          return reply(null);
        default:
          return socket.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } }));
      }
    });
  });

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${port}`,
    followsPerConnection: () => [...held.values()].map((follows) => follows.size),
    calls,
    stop(followId) {
      const socket = holderOf(followId);
      if (!socket) return;
      held.get(socket)!.delete(followId);
      notify(socket, followId, { event: 'stop' });
    },
    dropConnectionOf(followId) {
      holderOf(followId)?.terminate();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
