// `npm run bench:fleet`: 1, 2 and 3 fastcar replicas sharing one Redis behind nginx, on
// the devnet, each reaching the node through a counting relay of its own. Two loads:
//  - the walk: blocks 1..N asked once each, in order, a few clients at once, with
//    every cache cold (a Redis of its own per fleet): node calls per block and req/s;
//  - head polling: clients asking /blocks/head (then that block) as fast as answers
//    come while new blocks are finalized every second: node calls per new block, those
//    of the builds apart (all but chain_getFinalizedHead, which every /blocks/head
//    asks, so it follows the request rate), and req/s.
// req/s per replica is the fleet's divided by its size. The clients share this process
// with the devnet, and the machine with whatever else runs: the node-call figures are
// exact, the rates are this machine's. Prints a table, writes bench/results/fleet.json.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { serveStoredChain } from '../devnet/cli';
import type { Devnet } from '../devnet/chain';
import { callsOf, ensureNginx, startNginx, startReplica, type Replica } from '../harness/fleet';
import { startRedis } from '../harness/processes';

interface Options {
  walk: number;
  blocks: number;
  clients: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { walk: 200, blocks: 8, clients: 8 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if (flag === '--walk') options.walk = value;
    else if (flag === '--blocks') options.blocks = value;
    else if (flag === '--clients') options.clients = value;
    else {
      console.log('usage: npm run bench:fleet -- [--walk 200] [--blocks 8] [--clients 8]');
      process.exit(flag === '--help' ? 0 : 1);
    }
  }
  return options;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

interface Figures {
  callsPerBlock: number;
  /** The calls of the blocks' builds: all but chain_getFinalizedHead. */
  buildCallsPerBlock: number;
  getBlockPerBlock: number;
  requests: number;
  errors: number;
  seconds: number;
}

function callFigures(fleet: Replica[], blocks: number) {
  const calls = callsOf(fleet);
  return {
    callsPerBlock: calls / blocks,
    buildCallsPerBlock: (calls - callsOf(fleet, 'chain_getFinalizedHead')) / blocks,
    getBlockPerBlock: callsOf(fleet, 'chain_getBlock') / blocks,
  };
}

/** `clients` loops asking `next()`'s paths of `baseUrl` until it returns undefined. */
async function drive(baseUrl: string, clients: number, next: () => string | undefined): Promise<{ requests: number; errors: number }> {
  let requests = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let path = next(); path !== undefined; path = next()) {
        try {
          const response = await fetch(baseUrl + path);
          await response.arrayBuffer();
          if (response.status === 200) requests += 1;
          else errors += 1;
        } catch {
          errors += 1;
        }
      }
    }),
  );
  return { requests, errors };
}

async function walk(balancer: string, fleet: Replica[], blocks: number, clients: number): Promise<Figures> {
  for (const replica of fleet) replica.relay.reset();
  let height = 0;
  const started = performance.now();
  const { requests, errors } = await drive(balancer, clients, () => (height < blocks ? `/blocks/${++height}` : undefined));
  const seconds = (performance.now() - started) / 1000;
  return { ...callFigures(fleet, blocks), requests, errors, seconds };
}

async function pollHead(devnet: Devnet, balancer: string, fleet: Replica[], blocks: number, clients: number): Promise<Figures> {
  await devnet.chain.newBlock();
  await sleep(1000);
  for (const replica of fleet) replica.relay.reset();
  let polling = true;
  let head = -1;
  const paths = ['/blocks/head'];
  const started = performance.now();
  const driving = drive(balancer, clients, () => {
    if (!polling) return undefined;
    // Every other request asks for the newest block by its height, as a client that saw it in the head does.
    const path = head >= 0 && paths.length % 2 === 0 ? `/blocks/${head}` : '/blocks/head';
    paths.push(path);
    return path;
  });
  for (let i = 0; i < blocks; i++) {
    head = (await devnet.chain.newBlock()).number;
    await sleep(1000);
  }
  polling = false;
  const { requests, errors } = await driving;
  const seconds = (performance.now() - started) / 1000;
  return { ...callFigures(fleet, blocks), requests, errors, seconds };
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  ensureNginx();
  const { devnet, manifest } = await serveStoredChain(0);
  const walkBlocks = Math.min(options.walk, manifest.head.number);
  const results: Record<string, unknown> = { options: { ...options, walk: walkBlocks } };
  const rows: string[][] = [['replicas', 'load', 'node calls/block', 'build calls/block', 'getBlock/block', 'req/s', 'req/s per replica', 'errors']];
  for (const size of [1, 2, 3]) {
    // A Redis of its own: each fleet starts cold.
    const redis = await startRedis();
    const fleet = await Promise.all(Array.from({ length: size }, () => startReplica(devnet.wsUrl, { REDIS_URL: redis.url })));
    const balancer = await startNginx(fleet.map((replica) => replica.url));
    const walked = await walk(balancer.url, fleet, walkBlocks, options.clients);
    const polled = await pollHead(devnet, balancer.url, fleet, options.blocks, options.clients);
    for (const [load, figures] of [
      ['walk', walked],
      ['head polling', polled],
    ] as const) {
      const rate = figures.requests / figures.seconds;
      rows.push([
        String(size),
        load,
        String(round(figures.callsPerBlock)),
        String(round(figures.buildCallsPerBlock)),
        String(round(figures.getBlockPerBlock, 2)),
        String(Math.round(rate)),
        String(Math.round(rate / size)),
        String(figures.errors),
      ]);
      results[`${size}-${load}`] = { ...figures, reqPerSecond: round(rate), reqPerSecondPerReplica: round(rate / size) };
    }
    console.error(`  ${size} replica(s) done`);
    await balancer.stop();
    await Promise.all(fleet.map((replica) => replica.stop()));
    await redis.stop();
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padStart(widths[column])).join('  '));
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'fleet.json'), `${JSON.stringify(results, null, 2)}\n`);
  await devnet.close();
  // The devnet's executor threads outlive its close by a moment: the bench ends when its table is out.
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
