// The stand-in hosted provider (hostedProvider.ts) in a process of its own, as a
// provider is: its TLS, HTTP/2 and JSON work off the thread of whoever measures
// through it. Its counts are read over IPC.
import { startHostedProvider, type ProviderCounts, type ProviderLimits } from './hostedProvider';
import { forkPart, servePart } from './partProcess';

export interface RemoteProvider {
  url: string;
  caPath?: string;
  pid: number;
  counts(): Promise<ProviderCounts>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

type Options = Partial<Omit<ProviderLimits, 'throttleCall'>> & { tls?: boolean | 'http1' };
type Started = { url: string; caPath?: string };

interface ProviderArgs {
  nodeWsUrl: string;
  options: Options;
}

export async function startHostedProviderProcess(nodeWsUrl: string, options: Options = {}): Promise<RemoteProvider> {
  const part = await forkPart<ProviderArgs, Started, ProviderCounts>(__filename, { nodeWsUrl, options }, 'the stand-in provider');
  return { url: part.ready.url, caPath: part.ready.caPath, pid: part.pid, counts: part.counts, reset: part.reset, close: part.close };
}

if (require.main === module && process.send) {
  servePart<ProviderArgs, Started, ProviderCounts>(async ({ nodeWsUrl, options }) => {
    const provider = await startHostedProvider(nodeWsUrl, options);
    return {
      ready: { url: provider.url, caPath: provider.caPath },
      counts: () => provider.counts,
      reset: () => provider.reset(),
      close: () => provider.close(),
    };
  });
}
