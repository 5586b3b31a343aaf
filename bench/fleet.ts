// `npm run bench:fleet`: what a fleet costs the node. 1, 3 and 5 fastcar replicas share
// one Redis on the devnet, each reaching the node through an RPC tap of its own,
// each with its extrinsic index and prebuilder on, as deployed. One client per replica
// asks its replica for each new finalized block (`/blocks/{n}` and `/blocks/{n}/header`)
// the moment it is built, as exchanges and indexers do. Two kinds of block:
//  - small: the inherents only, what most chains make most of the time;
//  - fee-heavy: 20 signed transfers each, whose fees are read at the node.
// Prints node calls per new block across the fleet (all methods, then the main ones)
// and each fleet's against one replica's. The node-call figures are exact (counted at
// the relays); nothing here is timed. Writes bench/results/fleet.json.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { serveStoredChain } from '../devnet/cli';
import type { Devnet } from '../devnet/chain';
import { callsOf, startReplica, type Replica } from '../harness/fleet';
import { startRedis } from '../harness/processes';
import { devnetSigner, type Signer } from '../test/support/signer';

interface Options {
  blocks: number;
  transfers: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { blocks: 6, transfers: 20 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if (flag === '--blocks') options.blocks = value;
    else if (flag === '--transfers') options.transfers = value;
    else {
      console.log('usage: npm run bench:fleet -- [--blocks 6] [--transfers 20]');
      process.exit(flag === '--help' ? 0 : 1);
    }
  }
  return options;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const SIZES = [1, 3, 5];
const METHODS = ['chain_getBlock', 'chain_getBlockHash', 'chain_getHeader', 'chain_getFinalizedHead', 'state_getStorage', 'state_call'];
/** Background work of a block (the index, the streams' channels) settles within this, on the devnet. */
const SETTLE_MS = 700;

type Load = 'small' | 'fee-heavy';

interface Figures {
  /** Extrinsics in the blocks measured, on average: the load's size. */
  extrinsics: number;
  perBlock: number;
  byMethod: Record<string, number>;
  errors: number;
}

async function newBlock(devnet: Devnet, signer: Signer, load: Load, transfers: number): Promise<number> {
  if (load === 'small') return (await devnet.chain.newBlock()).number;
  const transactions: `0x${string}`[] = [];
  for (let i = 0; i < transfers; i++) transactions.push((await signer.transfer(1_000_000_000n + BigInt(i))) as `0x${string}`);
  return (await devnet.chain.newBlock({ transactions })).number;
}

/** Each replica's client asks for the block and its header as soon as it is built: the errors, and the block's extrinsics. */
async function askAll(fleet: Replica[], number: number): Promise<{ errors: number; extrinsics: number }> {
  let errors = 0;
  let extrinsics = 0;
  await Promise.all(
    fleet.map(async (replica) => {
      for (const path of [`/blocks/${number}`, `/blocks/${number}/header`]) {
        const response = await fetch(replica.url + path);
        const body = (await response.json()) as { extrinsics?: unknown[] };
        if (response.status !== 200) errors += 1;
        else if (body.extrinsics) extrinsics = body.extrinsics.length;
      }
    }),
  );
  return { errors, extrinsics };
}

async function measure(devnet: Devnet, signer: Signer, fleet: Replica[], load: Load, options: Options): Promise<Figures> {
  // A first block of the kind with everything warm: runtimes, fee knowledge, hash windows.
  await askAll(fleet, await newBlock(devnet, signer, load, options.transfers));
  await sleep(SETTLE_MS);
  for (const replica of fleet) replica.relay.reset();
  let errors = 0;
  let extrinsics = 0;
  for (let i = 0; i < options.blocks; i++) {
    const asked = await askAll(fleet, await newBlock(devnet, signer, load, options.transfers));
    errors += asked.errors;
    extrinsics += asked.extrinsics;
    await sleep(SETTLE_MS);
  }
  const byMethod: Record<string, number> = {};
  for (const method of METHODS) byMethod[method] = callsOf(fleet, method) / options.blocks;
  return { extrinsics: extrinsics / options.blocks, perBlock: callsOf(fleet) / options.blocks, byMethod, errors };
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const { devnet } = await serveStoredChain(0);
  const signer = await devnetSigner(devnet.wsUrl);
  const results: Record<string, unknown> = { options };
  const figures = new Map<string, Figures>();
  for (const size of SIZES) {
    // A Redis of its own: each fleet starts cold.
    const redis = await startRedis();
    const fleet: Replica[] = [];
    // One after another: a replica's start (its index filled back) is not counted, and does not crowd the others'.
    for (let i = 0; i < size; i++) fleet.push(await startReplica(devnet.wsUrl, { REDIS_URL: redis.url, FASTCAR_EXTRINSIC_INDEX_BLOCKS: '16' }));
    await sleep(1500);
    for (const load of ['small', 'fee-heavy'] as const) {
      console.error(`  ${size} replica(s), ${load} blocks`);
      const measured = await measure(devnet, signer, fleet, load, options);
      figures.set(`${size}:${load}`, measured);
      results[`${size}-${load}`] = measured;
    }
    console.error(`  ${size} replica(s) done`);
    await Promise.all(fleet.map((replica) => replica.stop()));
    await redis.stop();
  }
  const rows: string[][] = [
    ['blocks', 'extrinsics', 'replicas', 'calls/block', 'x one', ...METHODS.map((method) => method.replace(/^(chain|state)_/, '')), 'errors'],
  ];
  for (const load of ['small', 'fee-heavy'] as const) {
    const one = figures.get(`1:${load}`)!.perBlock;
    for (const size of SIZES) {
      const measured = figures.get(`${size}:${load}`)!;
      rows.push([
        load,
        String(round(measured.extrinsics, 1)),
        String(size),
        String(round(measured.perBlock, 1)),
        String(round(measured.perBlock / one)),
        ...METHODS.map((method) => String(round(measured.byMethod[method] ?? 0, 1))),
        String(measured.errors),
      ]);
      results[`${size}-${load}-ratio`] = round(measured.perBlock / one);
    }
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padStart(widths[column])).join('  '));
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'fleet.json'), `${JSON.stringify(results, null, 2)}\n`);
  await signer.close();
  await devnet.close();
  // The devnet's executor threads outlive its close by a moment: the bench ends when its table is out.
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
