// A harness part that stands for something on another host (the network's relay, a hosted
// provider) run in a process of its own, so its work stays off the thread of whoever
// measures through it; the parent starts it, then reads its counts, resets them or closes it
// over IPC.
import { fork } from 'node:child_process';

/** What the child's part gives the parent. */
export interface Part<Ready, Counts> {
  ready: Ready;
  counts(): Counts;
  reset(): void;
  close(): Promise<void>;
}

/** The part as the parent holds it. */
export interface RemotePart<Ready, Counts> {
  ready: Ready;
  pid: number;
  counts(): Promise<Counts>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

type Request<Args> = { start: Args } | { ask: 'counts' | 'reset' | 'close'; id: number };
type Reply<Ready, Counts> = { ready: Ready } | { id: number; counts?: Counts };

/** In the parent: forks `file` (a module that calls servePart) and starts its part with `args`; `name` says what failed. */
export async function forkPart<Args, Ready, Counts>(file: string, args: Args, name: string): Promise<RemotePart<Ready, Counts>> {
  const child = fork(file, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, (reply: Reply<Ready, Counts>) => void>();
  let nextId = 0;
  const ready = new Promise<Ready>((resolve, reject) => {
    child.on('message', (reply: Reply<Ready, Counts>) => {
      if ('ready' in reply) resolve(reply.ready);
      else waiting.get(reply.id)?.(reply);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  child.send({ start: args } satisfies Request<Args>);
  const started = await ready;
  const ask = (what: 'counts' | 'reset' | 'close') =>
    new Promise<Reply<Ready, Counts>>((resolve) => {
      const id = ++nextId;
      waiting.set(id, (reply) => {
        waiting.delete(id);
        resolve(reply);
      });
      child.send({ ask: what, id } satisfies Request<Args>);
    });
  return {
    ready: started,
    pid: child.pid ?? 0,
    counts: async () => ((await ask('counts')) as { counts: Counts }).counts,
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

/** In the child: starts the part the parent asks for, then answers its questions (exits once closed). */
export function servePart<Args, Ready, Counts>(start: (args: Args) => Promise<Part<Ready, Counts>>): void {
  let part: Part<Ready, Counts> | undefined;
  process.on('message', (request: Request<Args>) => {
    void (async () => {
      if ('start' in request) {
        part = await start(request.start);
        process.send?.({ ready: part.ready } satisfies Reply<Ready, Counts>);
        return;
      }
      if (request.ask === 'reset') part?.reset();
      if (request.ask === 'close') await part?.close();
      const reply: Reply<Ready, Counts> = { id: request.id, counts: request.ask === 'counts' ? part?.counts() : undefined };
      process.send?.(reply, undefined, {}, () => {
        if (request.ask === 'close') process.exit(0);
      });
    })();
  });
}
