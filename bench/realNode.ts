// `npm run bench:real` (or `npm run bench -- --node real`): the benchmarks on a real node,
// polkadot-omni-node running the devnet's runtime with the devnet's seeded history
// (devnet/realNode.ts), fastcar beside sidecar 20.14.1 and polkadot-rest-api (sidecar's Rust
// successor) on the same blocks, in one run:
//   - cold /blocks with fees and without, at one connection and at ten, the node local and
//     `--delay-ms` away (each service fresh, behind an RPC tap process of its own:
//     calls and waves per request; its process CPU and the node's per request, from /proc);
//   - the 500+-extrinsic block cold, each service fresh and JIT-warm from other blocks, its
//     first answer and the median of the next, beside the raw fetch of the block and its
//     events from the same node in the same turns;
//   - warm /blocks against a bare Node server sending fastcar's own answers as fixed bytes;
//   - the wallet rows (bench/walletRounds.ts on this node): balance-info over distinct
//     accounts, transaction material, a fee estimate, a wallet's sync (waves per read), near
//     and far;
//   - where fastcar's CPU goes (node --cpu-prof, self time per function): on the big block
//     cold, and on a cold walk of the blocks with fees at ten connections.
// The node builds and finalizes a block every `--block-time-ms` (6000 by default: an Asset
// Hub's pace, the head still for longer). fastcar builds no new block before it is asked
// (FASTCAR_PREBUILD_BLOCKS=0) in the cold rows: each service's CPU is then its answers'.
// polkadot-rest-api from PRAPI_BIN, or the build in the cache when there; without it, one
// line and no column. Prints a markdown table with ratios against sidecar 20 and against
// polkadot-rest-api, and the goals of issue 44 met or missed; writes bench/results/realnode.json.
import '../devnet/quiet';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

import { FASTCAR_CACHE, serveRealChain } from '../devnet/realNode';
import type { DevnetProcess } from '../harness/devnetProcess';
import { startBareServer } from '../harness/bareServer';
import { processCpuMs, startFastcarProcess, startPrapi, startSidecar, type Peer } from '../harness/processes';
import { startTapProcess, type RemoteTap } from '../harness/rpcTapProcess';
import { connectRpc, type RpcClient } from '../harness/rpcClient';
import { walletRounds, type WalletRow } from './walletRounds';

type Service = 'fastcar' | 'sidecar20' | 'prapi' | 'raw fetch' | 'node-http';
const SYSTEM_EVENTS = '0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7';

interface Options {
  blocks: number;
  connections: number[];
  delayMs: number;
  blockTimeMs: number;
  duration: number;
  bigRuns: number;
  walletRequests: number;
  walletAccounts: number;
  only: string[];
}

export interface Row {
  section: 'cold' | 'big' | 'warm' | 'wallet';
  scenario: string;
  service: Service;
  connections: number;
  /** Answers per second (cold, warm, wallet rows). */
  rps?: number;
  /** Time per answer (big-block rows: the median). */
  ms?: number;
  /** The big block's first answer from a fresh process (its runtime already loaded). */
  firstMs?: number;
  p50?: number;
  p99?: number;
  non2xx: number;
  callsPerRequest?: number;
  wavesPerRequest?: number;
  /** The service's process CPU per answer, ms. */
  cpuMs?: number;
  /** The node's process CPU per answer, ms. */
  nodeCpuMs?: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    blocks: 150,
    connections: [1, 10],
    delayMs: 5,
    blockTimeMs: 6000,
    duration: 8,
    bigRuns: 5,
    walletRequests: 400,
    walletAccounts: 2000,
    only: [],
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--node') continue; // `npm run bench -- --node real` hands its arguments on whole
    if (flag === '--blocks') options.blocks = Number(value);
    else if (flag === '--connections') options.connections = value.split(',').map(Number);
    else if (flag === '--delay-ms') options.delayMs = Number(value);
    else if (flag === '--block-time-ms') options.blockTimeMs = Number(value);
    else if (flag === '--duration') options.duration = Number(value);
    else if (flag === '--big-runs') options.bigRuns = Number(value);
    else if (flag === '--wallet-requests') options.walletRequests = Number(value);
    else if (flag === '--wallet-accounts') options.walletAccounts = Number(value);
    else if (flag === '--only') options.only = value.split(',');
    else {
      console.log(
        'usage: npm run bench:real -- [--only cold,big,warm,wallet,profile] [--blocks 150] [--connections 1,10] [--delay-ms 5] [--block-time-ms 6000] [--duration 8] [--big-runs 5] [--wallet-requests 400] [--wallet-accounts 2000]',
      );
      process.exit(flag === '--help' ? 0 : 1);
    }
  }
  return options;
}

/** polkadot-rest-api's binary: PRAPI_BIN, or the release build in fastcar's cache directory. */
function prapiBinary(): string | undefined {
  if (process.env.PRAPI_BIN) return process.env.PRAPI_BIN;
  const built = join(FASTCAR_CACHE, 'prapi-target', 'release', 'polkadot-rest-api');
  return existsSync(built) ? built : undefined;
}

const round = (value: number) => Math.round(value * 10) / 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** polkadot-rest-api serves sidecar's routes under /v1. */
const prefixOf = (service: Service) => (service === 'prapi' ? '/v1' : '');

/** Each path once, `connections` at a time, every answer read whole: the times and the non-2xx. */
async function runFixed(url: string, paths: string[], connections: number) {
  const queue = [...paths];
  const times: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        const sent = performance.now();
        const response = await fetch(url + path);
        await response.arrayBuffer();
        if (!response.ok) non2xx += 1;
        times.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const at = (p: number) => round(times[Math.min(times.length - 1, Math.floor(p * times.length))]);
  return { rps: round(times.length / seconds), p50: at(0.5), p99: at(0.99), non2xx };
}

interface Started {
  service: Service;
  peer: Peer;
  relay: RemoteTap;
}

/** The three services, fresh, each behind an RPC tap process of its own `delayMs` from the node. */
async function startTrio(nodeUrl: string, delayMs: number, prapiBin: string | undefined, fastcarEnv: Record<string, string>): Promise<Started[]> {
  const services: Service[] = ['fastcar', 'sidecar20', ...(prapiBin ? (['prapi'] as const) : [])];
  const relays = await Promise.all(services.map(() => startTapProcess(nodeUrl, delayMs)));
  const peers = await Promise.all(
    services.map((service, i) => {
      const url = relays[i].url;
      if (service === 'fastcar') return startFastcarProcess(url, fastcarEnv);
      if (service === 'sidecar20') return startSidecar(url, '/blocks/0/header', {}, 20);
      return startPrapi(prapiBin as string, url);
    }),
  );
  return services.map((service, i) => ({ service, peer: peers[i], relay: relays[i] }));
}

async function stopAll(started: Started[]): Promise<void> {
  await Promise.all(started.flatMap(({ peer, relay }) => [peer.stop(), relay.close()]));
}

async function rawFetchOnce(client: RpcClient, hash: string): Promise<number> {
  const started = performance.now();
  await Promise.all([client.call('chain_getBlock', [hash]), client.call('state_getStorage', [SYSTEM_EVENTS, hash])]);
  return performance.now() - started;
}

/**
 * The node, tried three times: it compiles its runtime at start, which on a loaded machine can
 * take longer than serveRealChain waits (120 s).
 */
async function startNode(blockTimeMs: number) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await serveRealChain({ blockTimeMs, progress: (line) => console.error(line) });
    } catch (error) {
      if (attempt >= 3) throw error;
      console.error(`bench:real: the node did not come up (${(error as Error).message.split('\n')[0].slice(0, 120)}), again`);
    }
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a profile's busy time went: self time per part, the biggest first. */
export interface ProfileSummary {
  answers: number;
  busyMsPerAnswer: number;
  /** A package, one of fastcar's files, Node's internals, or V8's own (the garbage collector). */
  parts: { part: string; msPerAnswer: number; share: number }[];
}

/** What a sample's function belongs to: its package, fastcar's file, Node, or the native name. */
function partOf({ functionName, url }: { functionName: string; url: string }): string {
  if (!url) return functionName || '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const inModules = url.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const [scope, name] = url.slice(inModules + 'node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const inDist = url.indexOf('/dist/');
  return inDist >= 0 ? url.slice(inDist + 1) : url;
}

/** Now on the monotonic clock `--cpu-prof` stamps its samples with, in µs. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** The samples of the profile in `dir` taken between `from` and `to` (µs, monotonic), by part. */
function summariseWindow(dir: string, from: number, to: number, answers: number): ProfileSummary {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const parts = new Map(profile.nodes.map((node) => [node.id, partOf(node.callFrame)]));
  const self = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const part = parts.get(id) ?? '?';
    if (at < from || at > to || part === '(idle)') return;
    const us = profile.timeDeltas[i + 1] ?? 0;
    busy += us;
    self.set(part, (self.get(part) ?? 0) + us);
  });
  return {
    answers,
    busyMsPerAnswer: round(busy / 1000 / answers),
    parts: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([part, us]) => ({ part, msPerAnswer: Math.round((us / 1000 / answers) * 100) / 100, share: round((us / busy) * 100) })),
  };
}

/** `npm run bench:real`: all of it, or the sections `--only` names. */
export async function realNodeBench(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  const wants = (section: string) => options.only.length === 0 || options.only.includes(section);
  const began = Date.now();
  const load = [loadavg()[0]];
  const prapiBin = prapiBinary();
  if (!prapiBin) console.error('polkadot-rest-api: skipped (set PRAPI_BIN=path/to/polkadot-rest-api, or build it into the cache, to compare with it)');
  console.error(`bench:real: starting polkadot-omni-node (a block every ${options.blockTimeMs} ms)...`);
  const served = await startNode(options.blockTimeMs);
  const { node, manifest } = served;
  const client = await connectRpc(node.wsUrl);
  const rows: Row[] = [];
  const profiles: Record<string, ProfileSummary> = {};
  const log = (row: Row) => {
    rows.push(row);
    const figure = row.rps !== undefined ? `${row.rps} req/s, p99 ${row.p99} ms` : `${row.ms} ms (first ${row.firstMs} ms)`;
    console.error(`  ${row.scenario} ${row.service} c=${row.connections}: ${figure}, cpu ${row.cpuMs ?? '-'} ms/req, node ${row.nodeCpuMs ?? '-'} ms/req`);
  };
  try {
    const big = manifest.blocks.big;
    const bigHash = await client.call<string>('chain_getBlockHash', [big]);
    const bigExtrinsics = (await client.call<{ block: { extrinsics: string[] } }>('chain_getBlock', [bigHash])).block.extrinsics.length;
    const ordinary = Array.from({ length: manifest.head.number - 1 }, (_, i) => i + 1).filter((n) => n !== big);
    const coldPaths = (prefix: string, query: string) => ordinary.slice(0, options.blocks).map((n) => `${prefix}/blocks/${n}${query}`);

    // 1. Cold /blocks, each service fresh for each row (fastcar caching nothing, sidecar's cache new,
    //    polkadot-rest-api has none); one service measured at a time, the others idle.
    if (wants('cold')) {
      for (const delayMs of [0, options.delayMs]) {
        const label = delayMs ? `+${delayMs}ms rpc: ` : '';
        for (const [name, query] of [
          ['cold fees', ''],
          ['cold noFees', '?noFees=true'],
        ] as const) {
          for (const connections of options.connections) {
            const trio = await startTrio(node.wsUrl, delayMs, prapiBin, { FASTCAR_CACHE_MAX_BYTES: '1', FASTCAR_PREBUILD_BLOCKS: '0' });
            try {
              for (const { service, peer, relay } of trio) {
                const prefix = prefixOf(service);
                // The runtime's metadata loaded before measuring (sidecar loads it at start), from a block outside the set.
                await (await fetch(`${peer.url}${prefix}/blocks/${manifest.head.number}${query}`)).arrayBuffer();
                const paths = coldPaths(prefix, query);
                await relay.reset();
                const [cpuBefore, nodeBefore] = [processCpuMs(peer.pid), processCpuMs(node.pid)];
                const run = await runFixed(peer.url, paths, connections);
                const counts = await relay.counts();
                log({
                  section: 'cold',
                  scenario: `${label}${name}`,
                  service,
                  connections,
                  ...run,
                  callsPerRequest: round(counts.calls / paths.length),
                  wavesPerRequest: connections === 1 ? round(counts.waves / paths.length) : undefined,
                  cpuMs: round((processCpuMs(peer.pid) - cpuBefore) / paths.length),
                  nodeCpuMs: round((processCpuMs(node.pid) - nodeBefore) / paths.length),
                });
              }
            } finally {
              await stopAll(trio);
            }
          }
        }
      }
      load.push(loadavg()[0]);
    }

    // 2. The 500+-extrinsic block cold: each service fresh, straight to the node, made JIT-warm on
    //    16 other blocks first (a running service is); its first answer, then the median of
    //    `bigRuns` more (a new paraId each: a new key in sidecar's block cache), with the raw fetch
    //    of the block and its events in the same turns.
    if (wants('big')) {
      const raw: number[] = [];
      // Node's fetch asks for gzip (fastcar compresses a big answer then; sidecar never does): also
      // asked as a client on the same host best asks, without compression.
      const identity = { 'accept-encoding': 'identity' };
      for (const [name, query, headers] of [
        ['fees', '', {}],
        ['noFees', 'noFees=true&', {}],
        ['fees, Accept-Encoding: identity', '', identity],
      ] as const) {
        for (const service of ['fastcar', 'sidecar20', ...(prapiBin ? ['prapi'] : [])] as Service[]) {
          const peer =
            service === 'fastcar'
              ? await startFastcarProcess(node.wsUrl, { FASTCAR_CACHE_MAX_BYTES: '1', FASTCAR_PREBUILD_BLOCKS: '0' })
              : service === 'sidecar20'
                ? await startSidecar(node.wsUrl, '/blocks/0/header', {}, 20)
                : await startPrapi(prapiBin as string, node.wsUrl);
          try {
            const prefix = prefixOf(service);
            await runFixed(peer.url, coldPaths(prefix, query ? '?noFees=true' : '').slice(0, 16), 1);
            const times: number[] = [];
            const cpuBefore = processCpuMs(peer.pid);
            let non2xx = 0;
            for (let turn = 0; turn <= options.bigRuns; turn++) {
              raw.push(await rawFetchOnce(client, bigHash));
              const started = performance.now();
              const response = await fetch(`${peer.url}${prefix}/blocks/${big}?${query}paraId=${100_000 + turn}`, { headers });
              await response.arrayBuffer();
              if (!response.ok) non2xx += 1;
              times.push(performance.now() - started);
            }
            const answers = options.bigRuns + 1;
            log({
              section: 'big',
              scenario: `block ${big} (${bigExtrinsics} extrinsics) cold, ${name}`,
              service,
              connections: 1,
              firstMs: round(times[0]),
              ms: round(median(times.slice(1))),
              non2xx,
              cpuMs: round((processCpuMs(peer.pid) - cpuBefore) / answers),
            });
          } finally {
            await peer.stop();
          }
        }
      }
      log({
        section: 'big',
        scenario: `block ${big} raw fetch (chain_getBlock + System.Events)`,
        service: 'raw fetch',
        connections: 1,
        ms: round(median(raw)),
        non2xx: 0,
      });
      load.push(loadavg()[0]);
    }

    // 3. Warm: fastcar with its cache, every answer primed, against a bare Node server sending
    //    fastcar's own answers as fixed bytes; in turns, the median of three runs each.
    if (wants('warm')) {
      const fastcar = await startFastcarProcess(node.wsUrl, { FASTCAR_CACHE_MAX_BYTES: String(256 * 1024 * 1024) });
      try {
        const paths = coldPaths('', '');
        await runFixed(fastcar.url, paths, 4);
        const answers: Record<string, string> = {};
        for (const path of paths) answers[path] = await (await fetch(`${fastcar.url}${path}`)).text();
        const bare = await startBareServer(answers);
        try {
          const runs: Record<'fastcar' | 'node-http', { rps: number; p50: number; p99: number; non2xx: number }[]> = { fastcar: [], 'node-http': [] };
          for (let turn = 0; turn < 3; turn++) {
            for (const [service, url] of [
              ['fastcar', fastcar.url],
              ['node-http', bare.url],
            ] as const) {
              let next = 0;
              const result = await autocannon({
                url,
                connections: 10,
                duration: Math.max(2, Math.round(options.duration / 2)),
                requests: [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
              });
              runs[service].push({ rps: round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx });
            }
          }
          for (const service of ['fastcar', 'node-http'] as const) {
            const middle = [...runs[service]].sort((a, b) => a.rps - b.rps)[1];
            log({ section: 'warm', scenario: `warm /blocks (${paths.length} distinct)`, service, connections: 10, ...middle });
          }
        } finally {
          await bare.stop();
        }
      } finally {
        await fastcar.stop();
      }
      load.push(loadavg()[0]);
    }

    // 4. The wallet rows, on this node (bench/walletRounds.ts), polkadot-rest-api as a third service.
    if (wants('wallet')) {
      const onThisNode = async (): Promise<DevnetProcess> => ({ wsUrl: node.wsUrl, manifest, close: async () => undefined });
      const walletRows = await walletRounds(
        {
          delayMs: options.delayMs,
          requests: options.walletRequests,
          accounts: options.walletAccounts,
          prapiBin,
          only: ['balance-info, distinct accounts', 'transaction material (head)', 'fee estimate, one transaction', 'wallet sync (5 calls, one after another)'],
        },
        (row) => console.error(`  ${row.scenario} ${row.service}: ${row.rps} req/s, ${row.callsPerRequest} calls/req, non2xx ${row.non2xx}`),
        onThisNode,
      );
      for (const row of walletRows) rows.push(fromWallet(row));
      load.push(loadavg()[0]);
    }

    // 5. Where fastcar's CPU goes: under --cpu-prof, fresh and caching nothing, JIT-warm from a walk first.
    if (wants('profile')) {
      const profiled = async (name: string, warmUp: string[], measured: string[], connections: number) => {
        const dir = mkdtempSync(join(tmpdir(), 'fastcar-realprof-'));
        const fastcar = await startFastcarProcess(
          node.wsUrl,
          { FASTCAR_CACHE_MAX_BYTES: '1', FASTCAR_PREBUILD_BLOCKS: '0' },
          { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] },
        );
        let window = [0, 0];
        try {
          await runFixed(fastcar.url, warmUp, 4);
          const from = monotonicUs();
          await runFixed(fastcar.url, measured, connections);
          window = [from, monotonicUs()];
        } finally {
          await fastcar.stop();
        }
        try {
          profiles[name] = summariseWindow(dir, window[0], window[1], measured.length);
        } catch (error) {
          console.error(`fastcar's CPU profile, ${name}: none (${(error as Error).message})`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      };
      const walkPaths = coldPaths('', '');
      await profiled(
        `block ${big} cold, fees`,
        [...walkPaths, ...walkPaths],
        Array.from({ length: 10 }, (_, i) => `/blocks/${big}?paraId=${i}`),
        1,
      );
      await profiled(
        'cold fees, c=10',
        [...walkPaths, ...walkPaths],
        walkPaths.map((path) => `${path}?paraId=1`),
        10,
      );
      for (const [name, summary] of Object.entries(profiles)) {
        console.error(`fastcar's CPU profile, ${name}: busy ${summary.busyMsPerAnswer} ms per answer (${summary.answers} answers), self time by part:`);
        for (const { part, msPerAnswer, share } of summary.parts) console.error(`  ${share}% ${msPerAnswer} ms ${part}`);
      }
    }
  } finally {
    client.close();
    await served.close();
  }

  const goals = goalLines(rows, options.delayMs);
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, loadAverage1m: load.map(round) },
    node: { binary: 'polkadot-omni-node 0.24.0', blockTimeMs: options.blockTimeMs },
    prapi: prapiBin ? 'polkadot-rest-api (release build)' : 'skipped',
    options,
    seconds: Math.round((Date.now() - began) / 1000),
    rows,
    goals,
    profiles,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'realnode.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(realNodeTable(rows));
  console.log(`\n${goals.join('\n')}`);
  console.log(
    `\n${result.machine.cpus} cores (${result.machine.cpuModel}), node ${process.version}, load average ${result.machine.loadAverage1m.join(' -> ')}; ${result.seconds}s in all`,
  );
  console.log('written: bench/results/realnode.json');
}

function fromWallet(row: WalletRow): Row {
  const service: Service = row.service === 'sidecar' ? 'sidecar20' : (row.service as Service);
  const sync = row.scenario.includes('wallet sync');
  return {
    section: 'wallet',
    scenario: row.scenario,
    service,
    connections: sync ? 1 : 10,
    rps: row.rps,
    p50: row.p50,
    p99: row.p99,
    non2xx: row.non2xx,
    callsPerRequest: row.callsPerRequest,
    wavesPerRequest: row.wavesPerRequest,
  };
}

/** `row` against the same scenario's `peer` service: how many times faster (more req/s, or fewer ms). */
function ratio(rows: Row[], row: Row, peer: Service): number | undefined {
  if (row.service === peer || row.service === 'raw fetch' || row.non2xx > 0) return undefined;
  const other = rows.find((o) => o.scenario === row.scenario && o.connections === row.connections && o.service === peer);
  if (!other || other.non2xx > 0) return undefined;
  if (row.rps !== undefined && other.rps) return row.rps / other.rps;
  if (row.ms && other.ms !== undefined) return other.ms / row.ms;
  return undefined;
}

export function realNodeTable(rows: Row[]): string {
  const lines = [
    '| scenario | service | conn | req/s | ms (first) | p50 ms | p99 ms | non2xx | rpc/req | waves/req | CPU ms/req | node CPU ms/req | x sidecar 20 | x prapi |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const x = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(value < 10 ? 2 : 1)}x`);
  const cell = (value: number | undefined) => (value === undefined ? '' : String(value));
  for (const row of rows) {
    const ms = row.ms === undefined ? '' : `${row.ms}${row.firstMs !== undefined ? ` (${row.firstMs})` : ''}`;
    lines.push(
      `| ${row.scenario} | ${row.service} | ${row.connections} | ${cell(row.rps)} | ${ms} | ${cell(row.p50)} | ${cell(row.p99)} | ${row.non2xx} | ${cell(row.callsPerRequest)} | ${cell(row.wavesPerRequest)} | ${cell(row.cpuMs)} | ${cell(row.nodeCpuMs)} | ${row.service === 'fastcar' || row.service === 'prapi' ? x(ratio(rows, row, 'sidecar20')) : ''} | ${row.service === 'fastcar' ? x(ratio(rows, row, 'prapi')) : ''} |`,
    );
  }
  return lines.join('\n');
}

/** Issue 44's goals on the real node, each met or missed by this run's figures. */
function goalLines(rows: Row[], delayMs: number): string[] {
  const find = (scenario: (s: string) => boolean, service: Service, connections?: number) =>
    rows.find((row) => scenario(row.scenario) && row.service === service && (connections === undefined || row.connections === connections));
  const lines: string[] = [];
  const verdict = (label: string, value: number | undefined, goal: number, atMost = false) => {
    if (value === undefined) return;
    const met = atMost ? value <= goal : value >= goal;
    lines.push(`${met ? 'met   ' : 'MISSED'} ${label}: ${value.toFixed(2)} (goal ${atMost ? '<=' : '>='} ${goal})`);
  };
  const coldFees10 = find((s) => s === 'cold fees', 'fastcar', 10);
  if (coldFees10) {
    verdict('cold /blocks fees c=10, x sidecar 20', ratio(rows, coldFees10, 'sidecar20'), 15);
    verdict('cold /blocks fees c=10, x polkadot-rest-api', ratio(rows, coldFees10, 'prapi'), 1.5);
    const prapi = find((s) => s === 'cold fees', 'prapi', 10);
    if (prapi) lines.push(`       CPU per cold block (fees, c=10): fastcar ${coldFees10.cpuMs} ms, polkadot-rest-api ${prapi.cpuMs} ms`);
  }
  const bigFees = find((s) => s.endsWith('cold, fees'), 'fastcar');
  const raw = rows.find((row) => row.service === 'raw fetch');
  if (bigFees) {
    verdict('the big block cold (fees), x sidecar 20', ratio(rows, bigFees, 'sidecar20'), 20);
    if (raw?.ms && bigFees.ms) verdict('the big block cold (fees), x the raw fetch of block + events', bigFees.ms / raw.ms, 3, true);
  }
  const warm = find((s) => s.startsWith('warm'), 'fastcar');
  const bare = find((s) => s.startsWith('warm'), 'node-http');
  if (warm?.rps && bare?.rps) verdict('warm, of a bare Node server', warm.rps / bare.rps, 0.95);
  const far = find((s) => s === `+${delayMs}ms rpc: balance-info, distinct accounts`, 'fastcar');
  if (far) verdict(`balance-info over distinct accounts at +${delayMs} ms, x sidecar 20`, ratio(rows, far, 'sidecar20'), 3);
  const sync = find((s) => s.startsWith('wallet sync'), 'fastcar');
  // A sync is its reads one after another (bench/walletRounds.ts): its waves over its reads.
  const reads = Number(/\((\d+) calls/.exec(sync?.scenario ?? '')?.[1] ?? 1);
  if (sync?.wavesPerRequest !== undefined)
    verdict(`node waves per wallet read (a wallet sync of ${reads} reads, one at a time)`, sync.wavesPerRequest / reads, 1, true);
  return lines;
}

if (require.main === module) {
  realNodeBench(process.argv.slice(2)).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}
