// `npm run bench:decode`: the cost of decoding, where fastcar must work rather
// than wait. In one run, against the real sidecar 18 on the same devnet, in this order
// (the first two while this process, the devnet and the client, is still light):
//   - a cold walk of blocks 20-200 at 10 connections through a warm caching proxy,
//     after twelve warm-up walks of the same blocks (a running indexer is JIT-warm),
//     the median of five walks each, taken in turns, and each service's process CPU
//     per block over its measured walks (from /proc);
//   - cold /blocks/17 (522 extrinsics, 2605 events), each service in turns with the
//     raw fetch of the block and its events (the floor of any cold answer);
//   - decode CPU per block, compiled codecs against polkadot.js, in this process;
//   - the raw fetch of the synthesized block below;
//   - a synthesized 3,000-extrinsic inscription block: cold time and peak RSS;
//   - warm p99 while that block is being answered cold, again and again.
// With PRAPI_BIN=path/to/polkadot-rest-api (sidecar's Rust successor, built from its
// repository), it is a third service in the cold /blocks/17 turns and the walk (its /v1
// routes); without it, those columns are skipped with a note. polkadot-rest-api asks
// `Core_version` on every request (a real node answers it in about a millisecond, the
// devnet runs its runtime for it): for cold /blocks/17 every service reaches the devnet
// through one relay that answers those from memory. It reads through the new
// `archive_v1_*` methods where the node lists them; the proxy lists only what it serves,
// so behind it (the walk) it reads through the legacy `chain_*`/`state_*` ones, which the
// warm proxy answers from its cache as it does for the others.
// Each walk also prints what ran beside it (this process: the client, the proxy and the
// devnet; the idle services) and the service's main thread apart from V8's helper threads.
// DECODE_ONLY=walk: the walk alone; DECODE_ONLY=big: block 17 alone. BENCH_FASTCAR_NODE_ARGS / BENCH_FASTCAR_STDOUT (in
// harness/processes.ts): flags for fastcar's node and a file for its output, to try V8's
// settings and read its --trace-* output.
// Prints the figures and writes bench/results/decode.json.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { Block, EventRecord } from '@polkadot/types/interfaces';
import { hexToU8a } from '@polkadot/util';
import autocannon from 'autocannon';

import { serveStoredChain } from '../devnet/cli';
import { askEach } from '../harness/http';
import { peakRssMb, processCpuMs, threadCpuMs, startFastcarProcess, startPrapi, startSidecar, type Peer } from '../harness/processes';
import { startMemoTap, type TappedCall } from '../harness/rpcTap';
import { connectRpc, type RpcClient } from '../harness/rpcClient';
import { startSpamNode } from '../harness/spamBlock';
import { createLogger } from '../src/logger';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import { startProxy } from '../src/proxy/startProxy';
import { readHeader, type RpcHeaderJson } from '../src/decode/header';
import { decodeWithCodecs, headerFieldsOf } from '../src/decode/polkadotReference';
import { assembleBlock } from '../src/services/blocks/blockShape';
import { decodeBody } from '../src/services/blocks/bodyDecoding';
import { RuntimeRegistry, type Runtime } from '../src/services/runtimes';
import { NodeClient } from '../src/rpc/nodeClient';

type Hex = `0x${string}`;
const SYSTEM_EVENTS = '0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7';
const SPAM_EXTRINSICS = 3000;
/**
 * Unmeasured requests before a measured series (for block 17, unmeasured turns of its four
 * variants). fastcar's cold block 17 took 35 ms after 8 such requests, 23 ms after 40 and 20
 * after 200 (V8 still compiling the once-per-request functions); a running service is warm.
 */
const WARM_UP_REQUESTS = 16;
/** Walks of 20-200 each service makes before the measured ones: past V8's optimizing compiles (fastcar and sidecar). */
const WARM_WALKS = 12;
/** Measured walks per service, of which the median counts. */
const MEASURED_WALKS = 5;
const query = { eventDocs: false, extrinsicDocs: false, noFees: false, decodedXcmMsgs: false };

const PRAPI_BIN = process.env.PRAPI_BIN;
/** DECODE_ONLY=walk: the walk alone (about four minutes); DECODE_ONLY=big: cold /blocks/17 alone (about a minute). Nothing written. */
const ONLY = process.env.DECODE_ONLY;
if (ONLY !== undefined && ONLY !== 'walk' && ONLY !== 'big') throw new Error(`DECODE_ONLY=${ONLY}: walk or big, or unset for the whole run`);
/** `Core_version`, however asked (legacy or archive_v1). */
const isCoreVersion = (call: TappedCall) =>
  (call.method === 'state_call' && call.params?.[0] === 'Core_version') || (call.method === 'archive_v1_call' && call.params?.[1] === 'Core_version');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value: number) => Math.round(value * 10) / 10;

/** One fetch of the block and its events, together, as any cold answer must: its time in ms. */
async function rawFetchOnce(client: RpcClient, hash: Hex): Promise<number> {
  const started = performance.now();
  await Promise.all([client.call('chain_getBlock', [hash]), client.call('state_getStorage', [SYSTEM_EVENTS, hash])]);
  return performance.now() - started;
}

/** The median raw fetch, after WARM_UP_REQUESTS unmeasured ones. */
async function rawFetchMs(client: RpcClient, hash: Hex, runs = 9): Promise<number> {
  const times: number[] = [];
  for (let i = -WARM_UP_REQUESTS; i < runs; i++) {
    const ms = await rawFetchOnce(client, hash);
    if (i >= 0) times.push(ms);
  }
  return round(median(times));
}

/**
 * Median time of requests one at a time, each path asked once, after WARM_UP_REQUESTS
 * unmeasured requests of the first path's kind (both services then run warm code, as
 * a running indexer's do: cold means the answer is not cached, not that the process is new).
 */
async function sequentialMs(baseUrl: string, paths: string[]): Promise<{ ms: number; status: number[] }> {
  const times: number[] = [];
  const status: number[] = [];
  const first = paths[0];
  const warmUp = first.includes('paraId=') ? first.replace(/paraId=\d+/, 'paraId=999999') : `${first}${first.includes('?') ? '&' : '?'}paraId=999999`;
  for (let i = 0; i < WARM_UP_REQUESTS; i++) await (await fetch(baseUrl + warmUp.replace('paraId=999999', `paraId=${999999 - i}`))).arrayBuffer();
  for (const path of paths) {
    const started = performance.now();
    const response = await fetch(baseUrl + path);
    await response.arrayBuffer();
    times.push(performance.now() - started);
    status.push(response.status);
  }
  return { ms: round(median(times)), status: [...new Set(status)] };
}

interface Walked {
  rps: number;
  non2xx: number;
  /** The service's process CPU per request over the walk, in ms (when its pid was given). */
  cpuMsPerBlock?: number;
  /** Of which its main thread's (the rest: V8's helper threads compiling and collecting, libuv's pool). */
  mainThreadMsPerBlock?: number;
  /** What else ran meanwhile, per request, in ms: this process (the client, the proxy, the devnet) and the idle services. */
  besideMsPerBlock?: { harness: number; others: number };
}

/**
 * Each path once, `connections` at a time: requests per second (and the CPU per request of
 * process `pid`, with what this process and the processes `others` spent meanwhile).
 */
async function walk(baseUrl: string, paths: string[], connections: number, pid?: number, others: number[] = []): Promise<Walked> {
  const cpuOf = (pids: number[]) => pids.reduce((sum, other) => sum + processCpuMs(other), 0);
  const [cpuBefore, othersBefore, harnessBefore] = [pid ? processCpuMs(pid) : 0, cpuOf(others), process.cpuUsage()];
  const mainBefore = pid ? (threadCpuMs(pid).get('main') ?? 0) : 0;
  const started = performance.now();
  const non2xx = await askEach(baseUrl, paths, connections);
  const rps = round(paths.length / ((performance.now() - started) / 1000));
  if (!pid) return { rps, non2xx };
  const perBlock = (ms: number) => Math.round((ms / paths.length) * 1000) / 1000;
  const harness = process.cpuUsage(harnessBefore);
  return {
    rps,
    non2xx,
    cpuMsPerBlock: perBlock(processCpuMs(pid) - cpuBefore),
    mainThreadMsPerBlock: perBlock((threadCpuMs(pid).get('main') ?? 0) - mainBefore),
    besideMsPerBlock: { harness: perBlock((harness.user + harness.system) / 1000), others: perBlock(cpuOf(others) - othersBefore) },
  };
}

/** Decode CPU of one block, both readings, in this process (median of runs, after a warm-up). */
async function decodeCpu(client: RpcClient, hash: Hex, runtime: Runtime) {
  const [{ block: rpcBlock }, eventsHex] = await Promise.all([
    client.call<{ block: { header: unknown; extrinsics: Hex[] } }>('chain_getBlock', [hash]),
    client.call<Hex>('state_getStorage', [SYSTEM_EVENTS, hash]),
  ]);
  const { registry } = runtime;
  const events = hexToU8a(eventsHex);
  const compiled = async () => {
    const reading = readHeader(rpcBlock.header as RpcHeaderJson);
    if (!reading) throw new Error('header declined');
    const body = await decodeBody(runtime, rpcBlock.extrinsics, events, () => {
      throw new Error('declined');
    });
    return JSON.stringify(assembleBlock(hash, reading.fields, body, query).body);
  };
  const reference = () => {
    const block = registry.createType('Block', rpcBlock) as Block;
    const records = registry.createType('Vec<EventRecord>', events) as unknown as EventRecord[];
    return JSON.stringify(assembleBlock(hash, headerFieldsOf(block.header, []), decodeWithCodecs(block, records), query).body);
  };
  const time = async (fn: () => unknown, runs: number) => {
    await fn();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await fn();
      times.push(performance.now() - started);
    }
    return round(median(times));
  };
  const same = (await compiled()) === reference();
  return { extrinsics: rpcBlock.extrinsics.length, compiledMs: await time(compiled, 7), polkadotJsMs: await time(reference, 3), identical: same };
}

/** The runtime at `hash` as the service loads it (metadata at the newest version both sides read). */
async function runtimeAt(url: string, hash: Hex): Promise<Runtime> {
  const node = new NodeClient({ url, timeoutMs: 30_000 });
  await node.ready();
  try {
    return await new RuntimeRegistry(node).get(await node.getRuntimeVersion(hash), hash);
  } finally {
    await node.disconnect();
  }
}

async function withPeers<T>(start: () => Promise<Peer[]>, use: (peers: Peer[]) => Promise<T>): Promise<{ result: T; rssMb: number[] }> {
  const peers = await start();
  try {
    const result = await use(peers);
    return { result, rssMb: peers.map((peer) => peakRssMb(peer.pid)) };
  } finally {
    await Promise.all(peers.map((peer) => peer.stop()));
  }
}

async function main() {
  const started = Date.now();
  const { devnet, manifest } = await serveStoredChain(0);
  const client = await connectRpc(devnet.wsUrl);
  const hashOf = (n: number) => client.call<Hex>('chain_getBlockHash', [n]);
  const big = manifest.blocks.big;
  const bigHash = await hashOf(big);
  const smallHash = await hashOf(manifest.blocks.transfer25);
  const runtime = await runtimeAt(devnet.wsUrl, bigHash);
  const figures: Record<string, unknown> = {};
  const say = (line: string) => console.log(line);
  const closeClientAndDevnet = async () => {
    client.close();
    await devnet.close();
  };

  if (!PRAPI_BIN) say('polkadot-rest-api: skipped (set PRAPI_BIN=path/to/polkadot-rest-api to compare with it)');
  const startServices = async (nodeUrl: string): Promise<Peer[]> => [
    await startFastcarProcess(nodeUrl, { FASTCAR_CACHE_MAX_BYTES: '1' }),
    await startSidecar(nodeUrl),
    ...(PRAPI_BIN ? [await startPrapi(PRAPI_BIN, nodeUrl)] : []),
  ];
  const names = ['fastcar', 'sidecar', 'prapi'] as const;
  /** Each service's path prefix: polkadot-rest-api serves sidecar's routes under /v1. */
  const prefixOf = (name: string) => (name === 'prapi' ? '/v1' : '');
  if (ONLY !== 'big') {
    // 1. Cold walk of 20-200 at c=10 through one warm caching proxy for all (the node answering at once);
    //    each service's process CPU per block over its measured walks. First, while this process (the
    //    client, the proxy and the devnet) is still light: its own garbage from the sections below would slow
    //    the proxy and the client, and the services' CPU per request with them.
    const proxy = await startProxy(proxyConfigFor([devnet.wsUrl], { port: 0, logLevel: 'silent' }), createLogger('silent'));
    const proxyUrl = `ws://${proxy.address}`;
    const walkPaths = (name: string, round: number) => Array.from({ length: 181 }, (_, i) => `${prefixOf(name)}/blocks/${20 + i}?paraId=${round}`);
    // The first walks fill the proxy with what each service asks.
    await withPeers(
      () => startServices(proxyUrl),
      async (peers) => {
        for (const [i, peer] of peers.entries()) await walk(peer.url, walkPaths(names[i], 0), 10);
      },
    );
    const walked = await withPeers(
      () => startServices(proxyUrl),
      async (peers) => {
        // A long-running indexer's process is warm: each walks the range WARM_WALKS times first, each
        // time under another paraId (a new key in sidecar's block cache; the others have none). V8
        // goes on compiling hot functions for the first couple of thousand requests: three walks
        // were not enough, and measured that compiling (a third of the CPU) rather than the work.
        for (let round = 1; round <= WARM_WALKS; round++) for (const [i, peer] of peers.entries()) await walk(peer.url, walkPaths(names[i], round), 10);
        // Then MEASURED_WALKS measured walks each, taken in turns (new keys again), and the median
        // of each: on a shared 2-core machine one walk can meet another tenant's burst.
        const measured = peers.map(() => [] as Walked[]);
        for (let round = WARM_WALKS + 1; round <= WARM_WALKS + MEASURED_WALKS; round++) {
          for (const [i, peer] of peers.entries()) {
            const others = peers.filter((other) => other !== peer).map((other) => other.pid);
            measured[i].push(await walk(peer.url, walkPaths(names[i], round), 10, peer.pid, others));
          }
        }
        const middle = (runs: Walked[]) => ({
          rps: median(runs.map((run) => run.rps)),
          cpuMsPerBlock: median(runs.map((run) => run.cpuMsPerBlock ?? 0)),
          non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
          walks: runs.map((run) => run.rps),
          cpuWalks: runs.map((run) => run.cpuMsPerBlock),
          mainThreadWalks: runs.map((run) => run.mainThreadMsPerBlock),
          harnessCpuWalks: runs.map((run) => run.besideMsPerBlock?.harness),
          othersCpuWalks: runs.map((run) => run.besideMsPerBlock?.others),
        });
        return Object.fromEntries(measured.map((runs, i) => [names[i], middle(runs)]));
      },
    );
    await proxy.proxy.close();
    figures.coldWalk = walked.result;
    const { fastcar: walkFastcar, sidecar: walkSidecar, prapi: walkPrapi } = walked.result;
    for (const name of names) {
      const runs = walked.result[name];
      if (!runs) continue;
      say(
        `  ${name}'s walks: ${runs.walks.join(', ')} req/s; its CPU per block ${runs.cpuWalks.join(', ')} ms (main thread ${runs.mainThreadWalks.join(', ')}); meanwhile this process ${runs.harnessCpuWalks.join(', ')}, the idle services ${runs.othersCpuWalks.join(', ')}`,
      );
    }
    say(
      `cold walk 20-200, fees, c=10, via warm proxy: fastcar ${walkFastcar.rps} req/s, sidecar ${walkSidecar.rps} req/s -> ${round(walkFastcar.rps / walkSidecar.rps)}x (non-2xx ${walkFastcar.non2xx}/${walkSidecar.non2xx})`,
    );
    say(`  process CPU per block: fastcar ${walkFastcar.cpuMsPerBlock} ms, sidecar ${walkSidecar.cpuMsPerBlock} ms`);
    if (walkPrapi) {
      say(
        `  polkadot-rest-api: ${walkPrapi.rps} req/s (fastcar ${round(walkFastcar.rps / walkPrapi.rps)}x it), CPU per block ${walkPrapi.cpuMsPerBlock} ms (fastcar's is ${round(walkFastcar.cpuMsPerBlock / walkPrapi.cpuMsPerBlock)} of it), non-2xx ${walkPrapi.non2xx}`,
      );
    }
  }
  if (ONLY === 'walk') return closeClientAndDevnet();

  // 2. Cold /blocks/17, also while this process is light: the sections after it decode big blocks here
  //    with polkadot.js, and the devnet and the client then answer and read slower for every service,
  //    a few milliseconds that weigh on the fastest one's ratios most.
  //    fastcar with its cache off; sidecar asked with a new paraId each time (a new key in its block cache);
  //    polkadot-rest-api (no block cache) when at hand; the raw fetch again, in the same turns.
  const memo = await startMemoTap(devnet.wsUrl, isCoreVersion);
  const cold = await withPeers(
    () => startServices(memo.url),
    async (peers) => {
      // Node's fetch asks for gzip, and takes some 5 ms to inflate a 0.7 MB answer; sidecar never
      // compresses. Also measured as a client on the same host would best ask: no compression.
      const identity = { 'accept-encoding': 'identity' };
      const variants = [
        ['fees', '', {}],
        ['noFees', 'noFees=true&', {}],
        ['fees, Accept-Encoding: identity', '', identity],
        ['noFees, Accept-Encoding: identity', 'noFees=true&', identity],
      ] as const;
      // Runtimes loaded before measuring, as sidecar loads its at start.
      for (const [i, peer] of peers.entries()) await (await fetch(`${peer.url}${prefixOf(names[i])}/blocks/1`)).arrayBuffer();
      // Each service's variants in turn, round after round (with the raw fetch for fastcar's),
      // so a burst of another tenant's load on this shared machine falls on all of them alike.
      // The services one after the other: sidecar keeps working (collecting garbage) after it
      // answers, which would otherwise land in the next one's measurement.
      const times = new Map<string, number[]>();
      const note = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms]);
      for (const [i, peer] of peers.entries()) {
        const service = names[i];
        for (let turn = -WARM_UP_REQUESTS; turn < 9; turn++) {
          if (service === 'fastcar') {
            const ms = await rawFetchOnce(client, bigHash);
            if (turn >= 0) note('raw', ms);
          }
          for (const [index, [name, q, headers]] of variants.entries()) {
            // A paraId of its own per request: a new key in sidecar's block cache every time.
            const path = `${prefixOf(service)}/blocks/${big}?${q}paraId=${100_000 + (turn + WARM_UP_REQUESTS) * variants.length + index}`;
            const started = performance.now();
            await (await fetch(peer.url + path, { headers })).arrayBuffer();
            if (turn >= 0) note(`${service} ${name}`, performance.now() - started);
          }
        }
      }
      const out: Record<string, Record<string, number>> = {};
      for (const [name] of variants) {
        out[name] = {};
        for (const service of names.slice(0, peers.length)) out[name][`${service}Ms`] = round(median(times.get(`${service} ${name}`)!));
      }
      return { byVariant: out, rawFetchMs: round(median(times.get('raw')!)) };
    },
  );
  await memo.close();
  const rawInTurns = cold.result.rawFetchMs;
  figures.coldBig = { ...cold.result.byVariant, rawFetchMs: rawInTurns };
  say(`raw fetch of block ${big} in the same turns: ${rawInTurns} ms`);
  for (const [name, m] of Object.entries(cold.result.byVariant)) {
    const prapi = m.prapiMs === undefined ? '' : `, polkadot-rest-api ${m.prapiMs} ms -> ${round(m.prapiMs / m.fastcarMs)}x it`;
    say(
      `cold /blocks/${big} (${name}): fastcar ${m.fastcarMs} ms, sidecar ${m.sidecarMs} ms -> ${round(m.sidecarMs / m.fastcarMs)}x sidecar${prapi}; ${round(m.fastcarMs / rawInTurns)}x the raw fetch`,
    );
  }
  if (ONLY === 'big') return closeClientAndDevnet();

  console.error('spam block: signing and encoding...');
  const spam = await startSpamNode(devnet.wsUrl, { count: SPAM_EXTRINSICS, templateBlock: manifest.blocks.bigRemarks });
  const spamClient = await connectRpc(spam.url);

  // 3. Decode CPU per block.
  const cpu = {
    [`block ${manifest.blocks.transfer25} (small)`]: await decodeCpu(client, smallHash, runtime),
    [`block ${big}`]: await decodeCpu(client, bigHash, runtime),
    [`spam block (${spam.extrinsics} extrinsics)`]: await decodeCpu(spamClient, spam.hash, runtime),
  };
  figures.decodeCpu = cpu;
  say('decode + shape CPU per block (median, this process):');
  for (const [name, m] of Object.entries(cpu))
    say(`  ${name}: compiled ${m.compiledMs} ms, polkadot.js ${m.polkadotJsMs} ms (${round(m.polkadotJsMs / m.compiledMs)}x), identical JSON: ${m.identical}`);

  // 4. The raw fetch of the block and its events.
  // (block 17's is taken in the turns of section 2, beside the answers it is compared with)
  const rawSpam = await rawFetchMs(spamClient, spam.hash);
  figures.rawFetchMs = { spam: rawSpam };
  say(`raw fetch (chain_getBlock + System.Events together): spam block ${rawSpam} ms`);

  // 5. The spam block, cold: fastcar (cache off), then sidecar once (noFees, or it asks the devnet's slow runtime for every fee).
  const spamCold = await withPeers(
    async () => [await startFastcarProcess(spam.url, { FASTCAR_CACHE_MAX_BYTES: '1' })],
    async ([fastcar]) => {
      await fetch(`${fastcar.url}/blocks/1`);
      return sequentialMs(
        fastcar.url,
        Array.from({ length: 5 }, (_, i) => `/blocks/${spam.hash}?paraId=${i}`),
      );
    },
  );
  const spamSidecar = await withPeers(
    async () => [await startSidecar(spam.url)],
    async ([sidecar]) => sequentialMs(sidecar.url, [`/blocks/${spam.hash}?noFees=true`]),
  );
  figures.spamBlock = {
    extrinsics: spam.extrinsics,
    mb: round(spam.bytes / 1e6),
    fastcarMs: spamCold.result.ms,
    fastcarPeakRssMb: spamCold.rssMb[0],
    sidecarNoFeesMs: spamSidecar.result.ms,
    sidecarPeakRssMb: spamSidecar.rssMb[0],
    rawFetchMs: rawSpam,
  };
  say(
    `spam block (${spam.extrinsics} extrinsics, ${round(spam.bytes / 1e6)} MB): fastcar cold ${spamCold.result.ms} ms, peak RSS ${spamCold.rssMb[0]} MB; sidecar (noFees) ${spamSidecar.result.ms} ms, peak RSS ${spamSidecar.rssMb[0]} MB`,
  );

  // 6. Warm p99 with and without the spam block being answered cold alongside.
  const warmPath = `/blocks/${manifest.blocks.transfer25}`;
  const stall = await withPeers(
    async () => [await startFastcarProcess(spam.url)],
    async ([fastcar]) => {
      await fetch(fastcar.url + warmPath);
      const warm = () => autocannon({ url: fastcar.url + warmPath, connections: 4, duration: 6 });
      const quiet = await warm();
      let coldAnswers = 0;
      let loading = true;
      const load = (async () => {
        for (let i = 0; loading; i++) {
          await (await fetch(`${fastcar.url}/blocks/${spam.hash}?paraId=${5000 + i}`)).arrayBuffer(); // not finalized: never cached
          coldAnswers++;
        }
      })();
      const busy = await warm();
      loading = false;
      await load;
      return { quietP99: quiet.latency.p99, busyP99: busy.latency.p99, busyMax: busy.latency.max, warmRps: busy.requests.average, coldAnswers };
    },
  );
  figures.warmDuringColdSpam = stall.result;
  say(
    `warm /blocks/${manifest.blocks.transfer25} c=4: p99 ${stall.result.quietP99} ms alone, ${stall.result.busyP99} ms (max ${stall.result.busyMax}) while the spam block was answered cold ${stall.result.coldAnswers} times`,
  );

  spamClient.close();
  await spam.close();
  await closeClientAndDevnet();
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
    seconds: Math.round((Date.now() - started) / 1000),
    figures,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'decode.json'), `${JSON.stringify(result, null, 2)}\n`);
  say(`written: bench/results/decode.json (${result.seconds}s)`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
