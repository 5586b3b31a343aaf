// The RPC tap (rpcTap.ts) in a process of its own, as the network between a
// service and its node is: its forwarding and its delay timers off the thread of the
// bench that measures through it (there they would queue behind the load generator,
// slowing whichever service sends more per second). Its counts are read over IPC.
import { forkPart, servePart } from './partProcess';
import { startTap, type TapCounts } from './rpcTap';

export interface RemoteTap {
  url: string;
  counts(): Promise<TapCounts>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

interface TapArgs {
  upstreamUrl: string;
  delayMs: number;
}

export async function startTapProcess(upstreamUrl: string, delayMs = 0): Promise<RemoteTap> {
  const { ready, counts, reset, close } = await forkPart<TapArgs, string, TapCounts>(__filename, { upstreamUrl, delayMs }, 'the RPC tap');
  return { url: ready, counts, reset, close };
}

if (require.main === module && process.send) {
  servePart<TapArgs, string, TapCounts>(async ({ upstreamUrl, delayMs }) => {
    const relay = await startTap(upstreamUrl, delayMs);
    return { ready: relay.url, counts: () => relay.counts, reset: () => relay.reset(), close: () => relay.close() };
  });
}
