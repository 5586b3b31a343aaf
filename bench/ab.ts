// `npm run bench:ab`: this build against another (BENCH_AB_MAIN: that build's
// dist/src/main.js, say a worktree of an older commit) on the same devnet, taken in
// turns so a burst of load on a shared machine falls on both alike. Per round: warm
// answers (finalized blocks kept as wire bytes) against a bare Node server sending the
// same bytes, and cold blocks (a fresh process, nothing cached), fees and noFees.
// Prints each figure's median over the rounds, and the ratios: whether a change to the
// doors a request comes in by, or to the reply path, moved anything.
import '../devnet/quiet';
import autocannon from 'autocannon';

import { serveStoredChain } from '../devnet/cli';
import { startBareServer } from '../harness/bareServer';
import { startFastcarProcess, type FastcarLaunch } from '../harness/processes';

const OTHER = process.env.BENCH_AB_MAIN;
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 5);
const COLD_BLOCKS = 100;

type Build = { name: string; launch: FastcarLaunch };

async function rate(url: string, paths: string[], connections: number, duration: number): Promise<number> {
  let next = 0;
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
  });
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

/** A fixed set of cold requests, `connections` at a time: requests per second. */
async function coldRate(url: string, paths: string[], connections: number): Promise<number> {
  const queue = [...paths];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        const response = await fetch(url + path);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${path}: ${response.status}`);
      }
    }),
  );
  return paths.length / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  if (!OTHER) throw new Error("set BENCH_AB_MAIN to the other build's dist/src/main.js");
  const builds: Build[] = [
    { name: 'this', launch: {} },
    { name: 'other', launch: { main: OTHER } },
  ];
  const { devnet, manifest } = await serveStoredChain(0);
  const ordinary = Array.from({ length: manifest.head.number }, (_, i) => i + 1).filter((n) => n !== manifest.blocks.big);
  const warmPaths = ordinary.slice(0, 50).map((n) => `/blocks/${n}`);
  const coldPaths = (query: string) => ordinary.slice(0, COLD_BLOCKS).map((n) => `/blocks/${n}${query}`);
  const figures = new Map<string, number[]>();
  const note = (key: string, value: number) => {
    figures.set(key, [...(figures.get(key) ?? []), value]);
    console.error(`  ${key}: ${value.toFixed(1)}`);
  };
  try {
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.error(`round ${round}`);
      const order = round % 2 ? builds : [...builds].reverse();
      for (const build of order) {
        for (const [label, query] of [
          ['cold fees', ''],
          ['cold noFees', '?noFees=true'],
        ] as const) {
          const fresh = await startFastcarProcess(devnet.wsUrl, { FASTCAR_CACHE_MAX_BYTES: '1', FASTCAR_PREBUILD_BLOCKS: '0' }, build.launch);
          await fetch(`${fresh.url}/blocks/${manifest.head.number}${query}`);
          note(`${label} ${build.name}`, await coldRate(fresh.url, coldPaths(query), 10));
          await fresh.stop();
        }
        const warm = await startFastcarProcess(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' }, build.launch);
        for (const path of warmPaths) await (await fetch(warm.url + path)).arrayBuffer();
        note(`warm ${build.name}`, await rate(warm.url, warmPaths, 10, SECONDS));
        if (build.name === 'this') {
          const answers: Record<string, string> = {};
          for (const path of warmPaths) answers[path] = await (await fetch(warm.url + path)).text();
          const bare = await startBareServer(answers);
          note('warm node-http', await rate(bare.url, warmPaths, 10, SECONDS));
          await bare.stop();
        }
        await warm.stop();
      }
    }
  } finally {
    await devnet.close();
  }
  console.log(`| figure (req/s, median of ${ROUNDS}) | this | other | this / other |`);
  console.log('|---|---|---|---|');
  for (const label of ['warm', 'cold fees', 'cold noFees']) {
    const mine = median(figures.get(`${label} this`) ?? []);
    const theirs = median(figures.get(`${label} other`) ?? []);
    console.log(`| ${label} | ${mine.toFixed(0)} | ${theirs.toFixed(0)} | ${(mine / theirs).toFixed(2)} |`);
  }
  const bare = median(figures.get('warm node-http') ?? []);
  console.log(`| warm node-http (the ceiling) | ${bare.toFixed(0)} | | this / node-http ${(median(figures.get('warm this') ?? []) / bare).toFixed(2)} |`);
}

// The devnet's executor threads outlive its close by a moment: the bench ends when its table is out.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
