// The counting relay (relay.ts) in a process of its own, as the network between a
// service and its node is: its forwarding and its delay timers off the thread of the
// bench that measures through it (there they would queue behind the load generator,
// slowing whichever service sends more per second). Its counts are read over IPC.
import { fork } from 'node:child_process';

import { startRelay, type Relay, type RelayCounts } from './relay';

export interface RemoteRelay {
  url: string;
  counts(): Promise<RelayCounts>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

type Request = { start: { upstreamUrl: string; delayMs: number } } | { ask: 'counts' | 'reset' | 'close'; id: number };
type Reply = { ready: string } | { id: number; counts?: RelayCounts };

export async function startRelayProcess(upstreamUrl: string, delayMs = 0): Promise<RemoteRelay> {
  const child = fork(__filename, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, (reply: Reply) => void>();
  let nextId = 0;
  const ready = new Promise<string>((resolve, reject) => {
    child.on('message', (reply: Reply) => {
      if ('ready' in reply) resolve(reply.ready);
      else waiting.get(reply.id)?.(reply);
    });
    child.once('exit', (code) => reject(new Error(`the relay exited with ${code}`)));
  });
  child.send({ start: { upstreamUrl, delayMs } } satisfies Request);
  const url = await ready;
  const ask = (what: 'counts' | 'reset' | 'close') =>
    new Promise<Reply>((resolve) => {
      const id = ++nextId;
      waiting.set(id, (reply) => {
        waiting.delete(id);
        resolve(reply);
      });
      child.send({ ask: what, id } satisfies Request);
    });
  return {
    url,
    counts: async () => ((await ask('counts')) as { counts: RelayCounts }).counts,
    reset: async () => {
      await ask('reset');
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await ask('close');
      await exited;
    },
  };
}

/** In the child: relay, and answer the parent's questions. */
if (require.main === module && process.send) {
  let relay: Relay | undefined;
  process.on('message', (request: Request) => {
    void (async () => {
      if ('start' in request) {
        relay = await startRelay(request.start.upstreamUrl, request.start.delayMs);
        process.send?.({ ready: relay.url } satisfies Reply);
        return;
      }
      if (request.ask === 'reset') relay?.reset();
      if (request.ask === 'close') await relay?.close();
      const reply: Reply = { id: request.id, counts: request.ask === 'counts' ? relay?.counts : undefined };
      process.send?.(reply, undefined, {}, () => {
        if (request.ask === 'close') process.exit(0);
      });
    })();
  });
}
