// `npm run bench`: fastcar against the real substrate-api-sidecar 18 on the
// same devnet, scenario by scenario, in one run. Prints a table with
// fastcar/sidecar ratios, writes bench/results/latest.json and latest.svg.

import '../devnet/quiet';
import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

import { serveStoredChain } from '../devnet/cli';
import { startSidecar, peakRssMb, startFastcarProcess } from '../harness/processes';
import { createLogger } from '../src/logger';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import { startProxy } from '../src/proxy/startProxy';
import { renderChart } from './chart';
import { startBareServer } from '../harness/bareServer';
import { startTap, type RpcTap } from '../harness/rpcTap';
import { walletRounds, walletTable, type WalletRow } from './walletRounds';
import type { ProviderCounts, ProviderLimits } from '../harness/hostedProvider';
import { startHostedProviderProcess, type RemoteProvider } from '../harness/hostedProviderProcess';

interface Options {
  duration: number;
  blocks: number;
  connections: number[];
  delayMs: number;
  /** Only the hosted-provider scenario (its figures go to bench/results/hosted.json). */
  onlyHosted: boolean;
  /** Only the wallet rounds (their figures go to bench/results/wallet.json, as bench:wallet's). */
  onlyWallet: boolean;
  /** Requests per wallet scenario. */
  walletRequests: number;
  walletAccounts: number;
  hostedDelayMs: number;
  /** Blocks per hosted scenario at one connection (sidecar takes about a second each there). */
  hostedBlocksC1: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    duration: 8,
    blocks: 150,
    connections: [1, 10],
    delayMs: 5,
    onlyHosted: false,
    onlyWallet: false,
    walletRequests: 400,
    walletAccounts: 2000,
    hostedDelayMs: 100,
    hostedBlocksC1: 40,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--duration') options.duration = Number(value);
    else if (flag === '--blocks') options.blocks = Number(value);
    else if (flag === '--connections') options.connections = value.split(',').map(Number);
    else if (flag === '--delay-ms') options.delayMs = Number(value);
    else if (flag === '--only' && value === 'hosted') options.onlyHosted = true;
    else if (flag === '--only' && value === 'wallet') options.onlyWallet = true;
    else if (flag === '--wallet-requests') options.walletRequests = Number(value);
    else if (flag === '--wallet-accounts') options.walletAccounts = Number(value);
    else if (flag === '--hosted-delay-ms') options.hostedDelayMs = Number(value);
    else if (flag === '--hosted-blocks-c1') options.hostedBlocksC1 = Number(value);
    else {
      console.log(
        'usage: npm run bench -- [--duration s] [--blocks n] [--connections 1,10] [--delay-ms 5] [--only hosted|wallet] [--hosted-delay-ms 100] [--hosted-blocks-c1 40] [--wallet-requests 400] [--wallet-accounts 2000]',
      );
      process.exit(flag === '--help' ? 0 : 1);
    }
  }
  return options;
}

interface Measurement {
  scenario: string;
  service: 'fastcar' | 'sidecar' | 'node-http';
  connections: number;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
  bytes: number;
  rpcCallsPerRequest?: number;
  wavesPerRequest?: number;
  /** Through the stand-in hosted provider: HTTP requests it received per block answered, and the 429s it sent. */
  providerRequestsPerRequest?: number;
  throttled?: number;
  /** Time the devnet behind the provider took per block answered (on top of the provider's delay). */
  nodeMsPerRequest?: number;
}

interface Target {
  service: Measurement['service'];
  url: string;
  relay?: RpcTap;
  provider?: RemoteProvider;
}

interface Sample {
  requests: number;
  seconds: number;
  latencies: number[];
  errors: number;
  non2xx: number;
  bytes: number;
}

/** Timed runs: autocannon, as fast as the machine allows. */
async function runTimed(url: string, paths: string[], connections: number, duration: number): Promise<Sample> {
  let next = 0;
  const started = performance.now();
  const result = await autocannon({
    url,
    connections,
    duration,
    timeout: 120,
    requests: [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
  });
  return {
    requests: result.requests.total,
    seconds: (performance.now() - started) / 1000,
    latencies: [result.latency.p50, result.latency.p90, result.latency.p99, result.latency.max],
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytes: result.throughput.total,
  };
}

/**
 * Runs of a fixed set of requests, timed to the millisecond (autocannon's
 * `amount` mode ends on a one-second tick, which blurs short cold runs).
 */
async function runFixed(url: string, paths: string[], connections: number): Promise<Sample> {
  const queue = [...paths];
  const times: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let bytes = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        const sent = performance.now();
        try {
          const response = await fetch(url + path);
          bytes += (await response.arrayBuffer()).byteLength;
          if (response.status < 200 || response.status >= 300) non2xx += 1;
        } catch {
          errors += 1;
        }
        times.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]);
  return { requests: times.length, seconds, latencies: [at(0.5), at(0.9), at(0.99), Math.round(times[times.length - 1])], errors, non2xx, bytes };
}

async function measure(
  scenario: string,
  target: Target,
  paths: string[],
  connections: number,
  options: { amount?: number; duration?: number },
): Promise<Measurement> {
  target.relay?.reset();
  await target.provider?.reset();
  const sample = options.amount
    ? await runFixed(target.url, paths.slice(0, options.amount), connections)
    : await runTimed(target.url, paths, connections, options.duration ?? 8);
  const [p50, p90, p99, max] = sample.latencies;
  const measurement: Measurement = {
    scenario,
    service: target.service,
    connections,
    requests: sample.requests,
    rps: Math.round((sample.requests / sample.seconds) * 10) / 10,
    p50,
    p90,
    p99,
    max,
    errors: sample.errors,
    non2xx: sample.non2xx,
    bytes: sample.bytes,
  };
  if (target.relay && sample.requests > 0) {
    measurement.rpcCallsPerRequest = Math.round((target.relay.counts.calls / sample.requests) * 10) / 10;
    // Rounds only add up per request when one request runs at a time.
    if (connections === 1) measurement.wavesPerRequest = Math.round((target.relay.counts.waves / sample.requests) * 10) / 10;
  }
  if (target.provider && sample.requests > 0) {
    const counts: ProviderCounts = await target.provider.counts();
    measurement.rpcCallsPerRequest = Math.round((counts.calls / sample.requests) * 10) / 10;
    measurement.providerRequestsPerRequest = Math.round((counts.requests / sample.requests) * 10) / 10;
    measurement.throttled = counts.throttled;
    measurement.nodeMsPerRequest = Math.round(counts.nodeMs / sample.requests);
    // One at a time, the provider's sequential rounds are the request's.
    if (connections === 1) measurement.wavesPerRequest = Math.round((counts.rounds / sample.requests) * 10) / 10;
  }
  return measurement;
}

/**
 * A fresh pair per cold scenario: neither may answer from what an earlier scenario
 * cached. Each service gets its own relay (to count its calls) and, with
 * `throughProxy`, its own caching proxy in front of the node.
 */
async function freshPair(nodeUrl: string, delayMs: number, cacheBytes: number, throughProxy = false) {
  const proxies = throughProxy ? await Promise.all([0, 1].map(() => startProxyFor(nodeUrl))) : [];
  const upstreamOf = (i: number) => (throughProxy ? `ws://${proxies[i].address}` : nodeUrl);
  const [sidecarRelay, fastcarRelay] = await Promise.all([startTap(upstreamOf(0), delayMs), startTap(upstreamOf(1), delayMs)]);
  const [sidecar, fastcar] = await Promise.all([
    startSidecar(sidecarRelay.url),
    startFastcarProcess(fastcarRelay.url, { FASTCAR_CACHE_MAX_BYTES: String(cacheBytes) }),
  ]);
  const targets: Target[] = [
    { service: 'fastcar', url: fastcar.url, relay: fastcarRelay },
    { service: 'sidecar', url: sidecar.url, relay: sidecarRelay },
  ];
  const rss = { fastcar: 0, sidecar: 0 };
  return {
    targets,
    async stop() {
      rss.fastcar = Math.max(rss.fastcar, peakRssMb(fastcar.pid));
      rss.sidecar = Math.max(rss.sidecar, peakRssMb(sidecar.pid));
      await Promise.all([sidecar.stop(), fastcar.stop(), sidecarRelay.close(), fastcarRelay.close()]);
      await Promise.all(proxies.map(({ proxy }) => proxy.close()));
      return rss;
    },
  };
}

/**
 * A fresh pair behind a stand-in hosted provider each (HTTPS, HTTP/2 offered, a delay per
 * request, `limits`), both trusting its certificate; caching nothing.
 */
async function hostedPair(nodeUrl: string, limits: Partial<ProviderLimits>) {
  // Each in a process of its own, as a provider is: its work is not the load generator's.
  const [sidecarProvider, fastcarProvider] = await Promise.all([0, 1].map(() => startHostedProviderProcess(nodeUrl, { ...limits, tls: true })));
  const trust = (provider: RemoteProvider) => ({ NODE_EXTRA_CA_CERTS: provider.caPath as string });
  const [sidecar, fastcar] = await Promise.all([
    startSidecar(sidecarProvider.url, '/blocks/0/header', trust(sidecarProvider)),
    startFastcarProcess(fastcarProvider.url, { FASTCAR_CACHE_MAX_BYTES: '1', ...trust(fastcarProvider) }),
  ]);
  const targets: Target[] = [
    { service: 'fastcar', url: fastcar.url, provider: fastcarProvider },
    { service: 'sidecar', url: sidecar.url, provider: sidecarProvider },
  ];
  return {
    targets,
    async stop() {
      const rss = { fastcar: peakRssMb(fastcar.pid), sidecar: peakRssMb(sidecar.pid) };
      await Promise.all([sidecar.stop(), fastcar.stop()]);
      await Promise.all([sidecarProvider.close(), fastcarProvider.close()]);
      return rss;
    },
  };
}

function startProxyFor(nodeUrl: string) {
  return startProxy(proxyConfigFor([nodeUrl], { port: 0, logLevel: 'silent' }), createLogger('silent'));
}

function table(measurements: Measurement[]): string {
  const hosted = measurements.some((m) => m.providerRequestsPerRequest !== undefined);
  const rows = [
    [
      'scenario',
      'service',
      'conn',
      'req/s',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'errors',
      'non2xx',
      'MB',
      'rpc/req',
      'waves/req',
      ...(hosted ? ['http/req', '429s', 'node ms/req'] : []),
      'x sidecar',
    ],
  ];
  for (const m of measurements) {
    const peer = measurements.find((o) => o.scenario === m.scenario && o.connections === m.connections && o.service === 'sidecar');
    const ratio = m.service !== 'sidecar' && peer && peer.rps > 0 ? `${(m.rps / peer.rps).toFixed(1)}x` : '';
    const hostedCells = hosted ? [m.providerRequestsPerRequest?.toString() ?? '', m.throttled?.toString() ?? '', m.nodeMsPerRequest?.toString() ?? ''] : [];
    rows.push([
      m.scenario,
      m.service,
      String(m.connections),
      String(m.rps),
      String(m.p50),
      String(m.p90),
      String(m.p99),
      String(m.max),
      String(m.errors),
      String(m.non2xx),
      (m.bytes / 1e6).toFixed(1),
      m.rpcCallsPerRequest?.toString() ?? '',
      m.wavesPerRequest?.toString() ?? '',
      ...hostedCells,
      ratio,
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows
    .map((row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`)
    .join('\n')
    .replace(/\n/, `\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`);
}

async function main() {
  // `--node real` (or FASTCAR_BENCH_NODE=real): the benchmarks on polkadot-omni-node, bench/realNode.ts.
  const argv = process.argv.slice(2);
  if ((argv.includes('--node') && argv[argv.indexOf('--node') + 1] === 'real') || process.env.FASTCAR_BENCH_NODE === 'real')
    return (await import('./realNode')).realNodeBench(argv);
  const options = parseOptions(argv);
  const started = Date.now();
  const wallet = () => walletRounds({ delayMs: options.delayMs, requests: options.walletRequests, accounts: options.walletAccounts }, logWallet);
  if (options.onlyWallet) {
    console.error('bench: the wallet rounds only, against sidecar 20');
    return reportWallet(options, await wallet());
  }
  const { devnet, manifest } = await serveStoredChain(0);
  const ordinary = Array.from({ length: manifest.head.number }, (_, i) => i + 1).filter((n) => n !== manifest.blocks.big);
  const coldPaths = (query: string) => ordinary.slice(0, options.blocks).map((n) => `/blocks/${n}${query}`);
  const measurements: Measurement[] = [];
  const rss = { fastcar: 0, sidecar: 0 };
  const log = (m: Measurement) => {
    measurements.push(m);
    console.error(`  ${m.scenario} ${m.service} c=${m.connections}: ${m.rps} req/s, p99 ${m.p99} ms, ${m.errors} errors`);
  };

  const coldRound = async (label: string, delayMs: number) => {
    for (const [name, query] of [
      [`${label}cold fees`, ''],
      [`${label}cold noFees`, '?noFees=true'],
    ] as const) {
      for (const connections of options.connections) {
        const pair = await freshPair(devnet.wsUrl, delayMs, 1); // a 1-byte cache holds nothing
        for (const target of pair.targets) {
          // Both load the runtime's metadata before measuring (sidecar does it at start,
          // fastcar at its first request), from a block outside the measured set.
          await fetch(`${target.url}/blocks/${manifest.head.number}${query}`);
          log(await measure(name, target, coldPaths(query), connections, { amount: options.blocks }));
        }
        const peak = await pair.stop();
        rss.fastcar = Math.max(rss.fastcar, peak.fastcar);
        rss.sidecar = Math.max(rss.sidecar, peak.sidecar);
      }
    }
  };
  const warmRound = async (label: string, delayMs: number) => {
    const pair = await freshPair(devnet.wsUrl, delayMs, 256 * 1024 * 1024);
    const paths = coldPaths('');
    for (const target of pair.targets) {
      await measure('prime', target, paths, 4, { amount: paths.length });
      log(await measure(`${label}warm`, target, paths, 10, { duration: options.duration }));
    }
    if (!label) {
      for (const target of pair.targets) {
        log(await measure('head', target, ['/blocks/head'], 10, { duration: options.duration }));
        log(await measure('head/header', target, ['/blocks/head/header'], 10, { duration: options.duration }));
        log(await measure(`largest block (${manifest.blocks.big}), repeated`, target, [`/blocks/${manifest.blocks.big}`], 1, { duration: options.duration }));
      }
      // The ceiling: Node's own http server, in a process of its own, sending fastcar's warm answers as fixed bytes.
      const answers: Record<string, string> = {};
      for (const path of paths) answers[path] = await (await fetch(`${pair.targets[0].url}${path}`)).text();
      const bare = await startBareServer(answers);
      log(await measure(`${label}warm`, { service: 'node-http', url: bare.url }, paths, 10, { duration: options.duration }));
      await bare.stop();
    }
    const peak = await pair.stop();
    rss.fastcar = Math.max(rss.fastcar, peak.fastcar);
    rss.sidecar = Math.max(rss.sidecar, peak.sidecar);
  };

  /**
   * Through a stand-in hosted provider far away (HTTPS, a delay per request), without and
   * with its limits (requests in flight and per second, 429 with Retry-After past them):
   * cold blocks, with fees and without, at one connection and at ten.
   */
  const hostedRound = async () => {
    const limited: Partial<ProviderLimits> = { maxInFlight: 20, ratePerSecond: 300, retryAfterSeconds: 1 };
    for (const [label, limits] of [
      ['', {}],
      [', limits 20 in flight 300/s', limited],
    ] as const) {
      for (const [name, query] of [
        ['cold fees', ''],
        ['cold noFees', '?noFees=true'],
      ] as const) {
        for (const connections of options.connections) {
          const scenario = `hosted +${options.hostedDelayMs}ms${label}: ${name}`;
          const pair = await hostedPair(devnet.wsUrl, { ...limits, delayMs: options.hostedDelayMs });
          const amount = connections === 1 ? options.hostedBlocksC1 : options.blocks;
          for (const target of pair.targets) {
            await fetch(`${target.url}/blocks/${manifest.head.number}${query}`);
            log(await measure(scenario, target, coldPaths(query), connections, { amount }));
          }
          const peak = await pair.stop();
          rss.fastcar = Math.max(rss.fastcar, peak.fastcar);
          rss.sidecar = Math.max(rss.sidecar, peak.sidecar);
        }
      }
    }
  };

  if (options.onlyHosted) {
    console.error(`bench: the hosted-provider scenario only (+${options.hostedDelayMs} ms per request)`);
    await hostedRound();
    await devnet.close();
    return report(options, started, rss, measurements, 'hosted');
  }
  console.error(`bench: ${options.blocks} distinct blocks per cold scenario, ${options.duration}s per timed scenario`);
  await coldRound('', 0);
  await warmRound('', 0);
  // Through a caching proxy (one per service): a first pass fills it, a second
  // pass shows services that are cold themselves behind a warm proxy.
  {
    const pair = await freshPair(devnet.wsUrl, 0, 1, true);
    for (const target of pair.targets) {
      await fetch(`${target.url}/blocks/${manifest.head.number}`);
      log(await measure('via proxy: cold fees', target, coldPaths(''), 10, { amount: options.blocks }));
      log(await measure('via warm proxy: cold fees', target, coldPaths(''), 10, { amount: options.blocks }));
    }
    const peak = await pair.stop();
    rss.fastcar = Math.max(rss.fastcar, peak.fastcar);
    rss.sidecar = Math.max(rss.sidecar, peak.sidecar);
  }
  await coldRound(`+${options.delayMs}ms rpc: `, options.delayMs);
  await warmRound(`+${options.delayMs}ms rpc: `, options.delayMs);
  await hostedRound();
  await devnet.close();
  // Against sidecar 20 (the blocks above are against sidecar 18), on a devnet of their own.
  const walletRows = await wallet();
  report(options, started, rss, measurements, 'latest', walletRows);
}

function logWallet(row: WalletRow): void {
  console.error(`  ${row.scenario} ${row.service}: ${row.rps} req/s, ${row.callsPerRequest} calls/req, non2xx ${row.non2xx}`);
}

function reportWallet(options: Options, rows: WalletRow[]): void {
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  const result = { date: new Date().toISOString(), delayMs: options.delayMs, requests: options.walletRequests, rows };
  writeFileSync(join(__dirname, 'results', 'wallet.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(walletTable(rows));
  console.log('written: bench/results/wallet.json');
}

function report(
  options: Options,
  started: number,
  rss: { fastcar: number; sidecar: number },
  measurements: Measurement[],
  name: 'latest' | 'hosted',
  wallet: WalletRow[] = [],
) {
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
    options,
    seconds: Math.round((Date.now() - started) / 1000),
    peakRssMb: rss,
    notes: [
      'The devnet is chopsticks: each runtime call (block building, fee query) runs in a wasm executor and takes ~0.5 s, so cold scenarios are bounded by the devnet, not by either service.',
      'In "via warm proxy" each service is itself cold (fastcar with a 1-byte cache; sidecar keeps its own block cache from the first pass).',
      'In "hosted" each service reaches the devnet through its own stand-in provider (harness/hostedProvider.ts, in a process of its own: HTTPS offering HTTP/2, the delay on every request); http/req is the HTTP requests that provider received per block answered (fastcar\'s finalized-head poll included), 429s the requests it refused, node ms/req the time the devnet behind it took per block answered, on top of the delay (one chopsticks process serving every call in turn: at 10 connections its queue, not the services, sets most of what exceeds the delay).',
    ],
    measurements,
    wallet,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(__dirname, 'results', `${name}.svg`), renderChart(measurements));
  console.log(table(measurements));
  if (wallet.length > 0) console.log(`\nThe wallet routes, against sidecar 20:\n${walletTable(wallet)}`);
  console.log(
    `\npeak RSS: fastcar ${rss.fastcar} MB, sidecar ${rss.sidecar} MB; ${result.machine.cpus} cores (${result.machine.cpuModel}), ${result.machine.memoryGb} GB, node ${process.version}; ${result.seconds}s in all`,
  );
  console.log(`written: bench/results/${name}.json, bench/results/${name}.svg`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
