// `npm run bench:stream`: following the chain on the devnet, 1,000 clients at once.
// fastcar with 1,000 clients on /blocks/stream: the time from the node's
// finalization (its notification, as seen on the wire) to the first and the last
// client's event, the spread between them, fastcar's CPU per event, its RSS, and the
// node calls per block against one client. Then the same 1,000 clients polling
// /blocks/head once a second, on fastcar and on sidecar 18: node calls and CPU per
// second. Clients run in a process of their own; each server behind its own counting
// relay. Prints the figures, writes bench/results/stream.json.
import '../devnet/quiet';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

import { serveStoredChain } from '../devnet/cli';
import { peakRssMb, rssMb, startFastcarProcess, startSidecar, type Peer } from '../harness/processes';
import { startTap, type RpcTap } from '../harness/rpcTap';
import { openStream, type SseStream } from '../harness/sseClient';

interface Options {
  clients: number;
  blocks: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { clients: 1000, blocks: 12 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--clients') options.clients = Number(value);
    else if (flag === '--blocks') options.blocks = Number(value);
    else {
      console.log('usage: npm run bench:stream -- [--clients 1000] [--blocks 12]');
      process.exit(flag === '--help' ? 0 : 1);
    }
  }
  return options;
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the clients' process ------------------------------------------------------

type ClientsTask = { mode: 'stream' | 'poll'; url: string; clients: number };
/** Per stream client: each block event's height and arrival time. */
type StreamReport = { kind: 'stream'; arrivals: [number, number][][]; errors: number };
/** Per poll: when it was sent, how long it took, the height answered (-1: failed). */
type PollReport = { kind: 'poll'; polls: [number, number, number][][] };

async function runClients(task: ClientsTask): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  let stop = false;
  let report: () => StreamReport | PollReport;
  if (task.mode === 'stream') {
    const streams: SseStream[] = [];
    let errors = 0;
    while (streams.length < task.clients) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, task.clients - streams.length) }, () =>
          openStream(`${task.url}/blocks/stream`, {}, agent, { keepData: false }).catch(() => {
            errors += 1;
            return undefined;
          }),
        ),
      );
      streams.push(...batch.filter((stream): stream is SseStream => stream !== undefined && stream.status === 200));
      errors += batch.filter((stream) => stream && stream.status !== 200).length;
    }
    await Promise.all(streams.map((stream) => stream.blocks(1)));
    report = () => ({ kind: 'stream', errors, arrivals: streams.map((stream) => stream.events.filter((e) => e.id).map((e) => [Number(e.id), e.at])) });
  } else {
    const polls: [number, number, number][][] = [];
    const poll = (): Promise<number> =>
      new Promise((resolve) => {
        const req = request(`${task.url}/blocks/head`, { agent }, (res) => {
          let head = '';
          res.on('data', (chunk: Buffer) => {
            if (head.length < 64) head += chunk.toString('latin1', 0, 64);
          });
          res.on('end', () => resolve(res.statusCode === 200 ? Number(/^\{"number":"(\d+)"/.exec(head)?.[1] ?? -1) : -1));
          res.on('error', () => resolve(-1));
        });
        req.setTimeout(30_000, () => req.destroy());
        req.on('error', () => resolve(-1));
        req.end();
      });
    for (let i = 0; i < task.clients; i++) {
      const mine: [number, number, number][] = [];
      polls.push(mine);
      // Spread over the first second, then once a second each (or as soon as the last answer came, if it took longer).
      void (async () => {
        await sleep(Math.random() * 1000);
        while (!stop) {
          const sent = now();
          const height = await poll();
          mine.push([sent, now() - sent, height]);
          await sleep(Math.max(0, 1000 - (now() - sent)));
        }
      })();
    }
    report = () => ({ kind: 'poll', polls });
  }
  process.send?.('ready');
  process.on('message', (message) => {
    if (message !== 'stop') return;
    stop = true;
    process.send?.(report(), () => process.exit(0));
  });
}

// ---- the benchmark ---------------------------------------------------------------

class Clients {
  private constructor(private readonly child: ChildProcess) {}

  static async start(task: ClientsTask): Promise<Clients> {
    const child = fork(__filename, ['--clients-task', JSON.stringify(task)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('message', (message) => (message === 'ready' ? resolve() : reject(new Error(String(message)))));
      child.once('exit', (code) => reject(new Error(`clients exited with ${code}`)));
    });
    return new Clients(child);
  }

  async stop<T>(): Promise<T> {
    const report = new Promise<T>((resolve) => this.child.once('message', (message) => resolve(message as T)));
    this.child.send('stop');
    return report;
  }
}

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
};
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A relay that also notes when the node announced each finalized height. */
async function countingRelay(nodeUrl: string, finalizedAt: Map<number, number>): Promise<RpcTap> {
  return startTap(nodeUrl, 0, 0, undefined, (message) => {
    const { method, params } = message as { method?: string; params?: { result?: { number?: string } } };
    if (method === 'chain_finalizedHead' && params?.result?.number) {
      const height = parseInt(params.result.number, 16);
      if (!finalizedAt.has(height)) finalizedAt.set(height, now());
    }
    return false;
  });
}

interface Window {
  heights: number[];
  /** When the first block was asked for and when the last one's wait ended. */
  from: number;
  to: number;
  /** When the node had built (and so finalized) each block, as its builder returned. */
  builtAt: Map<number, number>;
  seconds: number;
  cpu: number;
  calls: number;
  methods: Record<string, number>;
}

/**
 * Builds `count` blocks, one after another, waiting `gapMs` after each is built (so the
 * servers' work for it, and the pollers' next look, fall inside the window counted).
 */
async function buildBlocks(
  devnet: Awaited<ReturnType<typeof serveStoredChain>>['devnet'],
  relay: RpcTap,
  pid: number,
  count: number,
  gapMs: number,
): Promise<Window> {
  relay.reset();
  const cpu0 = cpuSeconds(pid);
  const t0 = now();
  const heights: number[] = [];
  const builtAt = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const { number } = await devnet.chain.newBlock();
    heights.push(number);
    builtAt.set(number, now());
    await sleep(gapMs);
  }
  return {
    heights,
    builtAt,
    from: t0,
    to: now(),
    seconds: (now() - t0) / 1000,
    cpu: cpuSeconds(pid) - cpu0,
    calls: relay.counts.calls,
    methods: { ...relay.counts.methods },
  };
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const started = Date.now();
  const { devnet } = await serveStoredChain(0);
  const finalizedAt = new Map<number, number>();
  const results: Record<string, unknown> = {};
  const rows: string[][] = [
    ['scenario', 'server', 'clients', 'blocks', 's', 'node calls/s', 'node calls/block', 'CPU s/s', 'CPU ms/event', 'RSS MB', 'peak RSS MB', 'errors'],
  ];
  const say = (text: string) => console.error(`  ${text}`);

  // 1. Streams on fastcar: one client, then all of them.
  {
    const relay = await countingRelay(devnet.wsUrl, finalizedAt);
    const fastcar = await startFastcarProcess(relay.url, { FASTCAR_MAX_STREAMS: String(options.clients + 100) });
    await fetch(`${fastcar.url}/blocks/head`).then((r) => r.arrayBuffer()); // the runtime loaded
    const one = await Clients.start({ mode: 'stream', url: fastcar.url, clients: 1 });
    const alone = await buildBlocks(devnet, relay, fastcar.pid, 3, 1500);
    await one.stop<StreamReport>();
    say(`stream, 1 client: ${alone.calls} node calls for ${alone.heights.length} blocks ${JSON.stringify(alone.methods)}`);

    const many = await Clients.start({ mode: 'stream', url: fastcar.url, clients: options.clients });
    const rssOpen = rssMb(fastcar.pid);
    say(`stream: ${options.clients} clients connected, fastcar RSS ${rssOpen} MB`);
    const window = await buildBlocks(devnet, relay, fastcar.pid, options.blocks, 1500);
    const report = await many.stop<StreamReport>();
    const rss = rssMb(fastcar.pid);
    const peak = peakRssMb(fastcar.pid);
    await fastcar.stop();
    await relay.close();

    const perBlock = window.heights.map((height) => {
      const times = report.arrivals.map((events) => events.find(([id]) => id === height)?.[1]).filter((at): at is number => at !== undefined);
      const finalized = finalizedAt.get(height) ?? NaN;
      return {
        height,
        received: times.length,
        first: Math.min(...times) - finalized,
        last: Math.max(...times) - finalized,
        spread: Math.max(...times) - Math.min(...times),
      };
    });
    const complete = perBlock.filter((block) => block.received === report.arrivals.length);
    const missing = perBlock.reduce((sum, block) => sum + report.arrivals.length - block.received, 0);
    const events = perBlock.reduce((sum, block) => sum + block.received, 0);
    const stream = {
      clients: report.arrivals.length,
      connectErrors: report.errors,
      blocks: window.heights.length,
      eventsMissing: missing,
      blocksReachingEveryClient: complete.length,
      finalizationToFirstMs: {
        p50: round(
          percentile(
            perBlock.map((b) => b.first),
            0.5,
          ),
        ),
        p99: round(
          percentile(
            perBlock.map((b) => b.first),
            0.99,
          ),
        ),
      },
      finalizationToLastMs: {
        p50: round(
          percentile(
            perBlock.map((b) => b.last),
            0.5,
          ),
        ),
        p99: round(
          percentile(
            perBlock.map((b) => b.last),
            0.99,
          ),
        ),
      },
      firstToLastMs: {
        p50: round(
          percentile(
            perBlock.map((b) => b.spread),
            0.5,
          ),
        ),
        p99: round(
          percentile(
            perBlock.map((b) => b.spread),
            0.99,
          ),
        ),
        max: round(Math.max(...perBlock.map((b) => b.spread))),
      },
      cpuMsPerEvent: round((window.cpu * 1000) / events, 3),
      cpuSecondsPerSecond: round(window.cpu / window.seconds, 3),
      nodeCallsPerSecond: round(window.calls / window.seconds, 2),
      nodeCallsPerBlock: { oneClient: round(alone.calls / alone.heights.length, 2), allClients: round(window.calls / window.heights.length, 2) },
      nodeCallsByMethod: { oneClient: alone.methods, allClients: window.methods },
      rssMb: { streamsOpen: rssOpen, end: rss, peak },
      perBlock: perBlock.map((b) => ({ ...b, first: round(b.first), last: round(b.last), spread: round(b.spread) })),
    };
    results.stream = stream;
    rows.push([
      '/blocks/stream',
      'fastcar',
      String(stream.clients),
      String(stream.blocks),
      String(round(window.seconds)),
      String(stream.nodeCallsPerSecond),
      String(stream.nodeCallsPerBlock.allClients),
      String(stream.cpuSecondsPerSecond),
      String(stream.cpuMsPerEvent),
      String(rss),
      String(peak),
      String(report.errors + missing),
    ]);
    rows.push([
      '/blocks/stream',
      'fastcar',
      '1',
      String(alone.heights.length),
      String(round(alone.seconds)),
      String(round(alone.calls / alone.seconds, 2)),
      String(stream.nodeCallsPerBlock.oneClient),
      '',
      '',
      '',
      '',
      '0',
    ]);
    say(
      `stream: finalization to last client p50 ${stream.finalizationToLastMs.p50} ms, p99 ${stream.finalizationToLastMs.p99} ms; first to last p99 ${stream.firstToLastMs.p99} ms`,
    );
  }

  // 2. The same clients polling /blocks/head once a second, on fastcar and on sidecar.
  for (const server of ['fastcar', 'sidecar'] as const) {
    const relay = await countingRelay(devnet.wsUrl, finalizedAt);
    const peer: Peer = server === 'fastcar' ? await startFastcarProcess(relay.url) : await startSidecar(relay.url);
    await fetch(`${peer.url}/blocks/head`).then((r) => r.arrayBuffer());
    const pollers = await Clients.start({ mode: 'poll', url: peer.url, clients: options.clients });
    await sleep(3000); // every poller started
    const window = await buildBlocks(devnet, relay, peer.pid, options.blocks, 1500);
    const rss = rssMb(peer.pid);
    const peak = peakRssMb(peer.pid);
    const report = await pollers.stop<PollReport>();
    await peer.stop();
    await relay.close();
    const all = report.polls.flat();
    const inWindow = all.filter(([sent]) => sent >= window.from && sent <= window.to);
    const failed = all.filter(([, , height]) => height < 0).length;
    // For each block: when the last poller first saw it (or a later one) after the node announced it.
    const seenLast = window.heights.map((height) => {
      const firstSeen = report.polls
        .map((polls) => polls.find(([, , h]) => h >= height))
        .filter((poll) => poll !== undefined)
        .map(([sent, took]) => sent + took);
      // Sidecar does not follow finalized heads, so the relay in front of it sees no notification: the block's build time then.
      const finalized = finalizedAt.get(height) ?? window.builtAt.get(height)!;
      return { height, sawIt: firstSeen.length, lastMs: Math.max(...firstSeen) - finalized };
    });
    const polling = {
      clients: options.clients,
      blocks: window.heights.length,
      requests: all.length,
      requestsPerSecond: round(inWindow.length / window.seconds, 1),
      failed,
      latencyMs: {
        p50: round(
          percentile(
            all.map(([, took]) => took),
            0.5,
          ),
        ),
        p99: round(
          percentile(
            all.map(([, took]) => took),
            0.99,
          ),
        ),
      },
      finalizationToLastPollerMs: {
        p50: round(
          percentile(
            seenLast.map((b) => b.lastMs),
            0.5,
          ),
        ),
        p99: round(
          percentile(
            seenLast.map((b) => b.lastMs),
            0.99,
          ),
        ),
      },
      cpuSecondsPerSecond: round(window.cpu / window.seconds, 3),
      nodeCallsPerSecond: round(window.calls / window.seconds, 2),
      nodeCallsPerBlock: round(window.calls / window.heights.length, 2),
      nodeCallsByMethod: window.methods,
      rssMb: { end: rss, peak },
    };
    results[`poll-${server}`] = polling;
    rows.push([
      '/blocks/head 1/s',
      server,
      String(options.clients),
      String(polling.blocks),
      String(round(window.seconds)),
      String(polling.nodeCallsPerSecond),
      String(polling.nodeCallsPerBlock),
      String(polling.cpuSecondsPerSecond),
      '',
      String(rss),
      String(peak),
      String(failed),
    ]);
    say(
      `poll ${server}: ${polling.requests} requests (${failed} failed), p99 ${polling.latencyMs.p99} ms, ${polling.nodeCallsPerSecond} node calls/s, CPU ${polling.cpuSecondsPerSecond} s/s`,
    );
  }
  await devnet.close();

  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const table = rows.map((row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`);
  table.splice(1, 0, `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  const output = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
    options,
    seconds: Math.round((Date.now() - started) / 1000),
    notes: [
      'Finalization is when the node (chopsticks, which finalizes every block it builds) sent its chain_finalizedHead notification, as the relay in front of each server saw it.',
      'Clients run in one process of their own on the same cores; their arrival times include their own reading.',
      'fastcar runs with its defaults (prebuilder on, extrinsic index off as the harness starts it); every server reaches the devnet through a relay that counts its calls.',
    ],
    results,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'stream.json'), `${JSON.stringify(output, null, 2)}\n`);
  console.log(table.join('\n'));
  const stream = results.stream as { finalizationToFirstMs: object; finalizationToLastMs: object; firstToLastMs: object };
  console.log(
    `\nstream, finalization to first client: ${JSON.stringify(stream.finalizationToFirstMs)} ms; to last: ${JSON.stringify(stream.finalizationToLastMs)} ms; first to last: ${JSON.stringify(stream.firstToLastMs)} ms`,
  );
  console.log(
    `${output.machine.cpus} cores (${output.machine.cpuModel}), node ${process.version}; ${output.seconds}s in all; written: bench/results/stream.json`,
  );
}

if (process.argv[2] === '--clients-task') {
  runClients(JSON.parse(process.argv[3]) as ClientsTask).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}
