// The stand-in hosted provider (hostedProvider.ts) in a process of its own, as a
// provider is: its TLS, HTTP/2 and JSON work off the thread of whoever measures
// through it. Its counts are read over IPC.
import { fork } from 'node:child_process';

import { startHostedProvider, type HostedProvider, type ProviderCounts, type ProviderLimits } from './hostedProvider';

export interface RemoteProvider {
  url: string;
  caPath?: string;
  pid: number;
  counts(): Promise<ProviderCounts>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

type Options = Partial<Omit<ProviderLimits, 'throttleCall'>> & { tls?: boolean | 'http1' };
type Request = { start: { nodeWsUrl: string; options: Options } } | { ask: 'counts' | 'reset' | 'close'; id: number };
type Reply = { ready: { url: string; caPath?: string } } | { id: number; counts?: ProviderCounts };

export async function startHostedProviderProcess(nodeWsUrl: string, options: Options = {}): Promise<RemoteProvider> {
  const child = fork(__filename, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, (reply: Reply) => void>();
  let nextId = 0;
  const ready = new Promise<{ url: string; caPath?: string }>((resolve, reject) => {
    child.on('message', (reply: Reply) => {
      if ('ready' in reply) resolve(reply.ready);
      else waiting.get(reply.id)?.(reply);
    });
    child.once('exit', (code) => reject(new Error(`the stand-in provider exited with ${code}`)));
  });
  child.send({ start: { nodeWsUrl, options } } satisfies Request);
  const { url, caPath } = await ready;
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
    caPath,
    pid: child.pid ?? 0,
    counts: async () => ((await ask('counts')) as { counts: ProviderCounts }).counts,
    reset: async () => {
      await ask('reset');
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await ask('close');
      await exited;
    },
  };
}

/** In the child: serve, and answer the parent's questions. */
if (require.main === module && process.send) {
  let provider: HostedProvider | undefined;
  process.on('message', (request: Request) => {
    void (async () => {
      if ('start' in request) {
        provider = await startHostedProvider(request.start.nodeWsUrl, request.start.options);
        process.send?.({ ready: { url: provider.url, caPath: provider.caPath } } satisfies Reply);
        return;
      }
      if (request.ask === 'reset') provider?.reset();
      if (request.ask === 'close') await provider?.close();
      const reply: Reply = { id: request.id, counts: request.ask === 'counts' ? provider?.counts : undefined };
      process.send?.(reply, undefined, {}, () => {
        if (request.ask === 'close') process.exit(0);
      });
    })();
  });
}
