// The counting relay (relay.ts) in a process of its own, as the network between a
// service and its node is: its forwarding and its delay timers off the thread of the
// bench that measures through it (there they would queue behind the load generator,
// slowing whichever service sends more per second). Its counts are read over IPC.
import { forkPart, servePart } from './partProcess';
import { startRelay, type RelayCounts } from './relay';

export interface RemoteRelay {
  url: string;
  counts(): Promise<RelayCounts>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

interface RelayArgs {
  upstreamUrl: string;
  delayMs: number;
}

export async function startRelayProcess(upstreamUrl: string, delayMs = 0): Promise<RemoteRelay> {
  const { ready, counts, reset, close } = await forkPart<RelayArgs, string, RelayCounts>(__filename, { upstreamUrl, delayMs }, 'the relay');
  return { url: ready, counts, reset, close };
}

if (require.main === module && process.send) {
  servePart<RelayArgs, string, RelayCounts>(async ({ upstreamUrl, delayMs }) => {
    const relay = await startRelay(upstreamUrl, delayMs);
    return { ready: relay.url, counts: () => relay.counts, reset: () => relay.reset(), close: () => relay.close() };
  });
}
