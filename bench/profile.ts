// `npm run bench:profile`: where fastcar's CPU goes on small cold blocks. A cold walk
// of blocks 20-200 at 10 connections through a warm caching proxy (the node answering
// at once, as a warm proxy or a near archive node does), fastcar with its cache off and
// under --cpu-prof. Prints the process CPU per block (from /proc, over the measured
// walks only, in user space and in the kernel, and per thread) and the self time per
// function and per file over the same walks. The measured walks come after twelve
// others (PROFILE_WARMUP): V8 goes on compiling hot functions on a helper thread for
// the first couple of thousand requests, a third of the CPU while it lasts.
import '../devnet/quiet';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { serveStoredChain } from '../devnet/cli';
import { askEach } from '../harness/http';
import { processCpuSplitMs, startFastcarProcess, threadCpuMs } from '../harness/processes';
import { createLogger } from '../src/logger';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import { startProxy } from '../src/proxy/startProxy';

const ROOT = join(__dirname, '..');
const WALKS = Number(process.env.PROFILE_WALKS ?? 6);
const WARMUP = Number(process.env.PROFILE_WARMUP ?? 12);
const CONNECTIONS = 10;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Now on the monotonic clock the profiler stamps its samples with, in µs. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const walk = (baseUrl: string, paths: string[]) => askEach(baseUrl, paths, CONNECTIONS);

/** Self time per function and per file, of the samples taken between `from` and `to` (µs, monotonic). */
function selfTimes(profile: CpuProfile, from: number, to: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const self = new Map<number, number>();
  // Inclusive time: each function once per sample it is on the stack of (idle left out).
  const inclusive = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from || at > to) return;
    const us = profile.timeDeltas[i + 1] ?? 0;
    self.set(id, (self.get(id) ?? 0) + us);
    if (byId.get(id)!.callFrame.functionName === '(idle)') return;
    const seen = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node)) {
      const name = frameName(byId.get(node)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  });
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url ? relative(ROOT, url.replace('file://', '')) : '(native)';
    const fn = frameName({ functionName, url, lineNumber });
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const group = file.startsWith('node_modules/')
      ? file
          .split('/')
          .slice(0, file.split('/')[1].startsWith('@') ? 3 : 2)
          .join('/')
      : file;
    byFile.set(group, (byFile.get(group) ?? 0) + us);
    total += us;
  }
  const top = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  const count = Number(process.env.PROFILE_TOP ?? 40);
  const byPart = new Map<string, number>();
  for (const [fn, us] of byFunction) {
    const part = partOf(fn);
    byPart.set(part, (byPart.get(part) ?? 0) + us);
  }
  return { total, functions: top(byFunction, count), files: top(byFile, 30), inclusive: top(inclusive, count * 2), parts: top(byPart, 20) };
}

/** The parts of the work a function's self time is counted in (the first pattern that matches). */
const PARTS: [part: string, pattern: RegExp][] = [
  ['idle', /^\(idle\)/],
  ['socket writes (writev/write syscalls)', /^(writev|writeBuffer|writeUtf8String|writeLatin1String) \(native\)/],
  ['garbage collection', /^\(garbage collector\)/],
  ['compression (zlib)', /node:zlib|zlib/],
  ['Express and router', /node_modules\/(express|router|parseurl|finalhandler|send|qs|body-parser|on-finished|content-type|mime|encodeurl|escape-html)\//],
  ['JSON-RPC client (polkadot.js provider, ws)', /node_modules\/(@polkadot\/rpc-provider|ws|@polkadot\/util\/cjs\/stringify)|src\/rpc\//],
  ['metrics (prom-client)', /node_modules\/prom-client|src\/metrics/],
  ['async hooks', /node:internal\/async_hooks|node:async_hooks/],
  [
    'Node HTTP server and streams',
    /node:_http|node:internal\/streams|node:net|node:internal\/stream_base|node:events|node:internal\/http|node:internal\/timers|node:timers/,
  ],
  ['decoding (src/decode, polkadot.js codecs, hashing)', /src\/decode\/|node_modules\/@polkadot\/(types|types-codec|util|util-crypto|wasm-|wasm)|wasm:|bn\.js/],
  ['serializing and shaping answers (JSON)', /src\/services\/(blockAnswer|blockShape|evmFormat)/],
  ['services (fetching, fees, caches)', /src\/services\/|src\/cache\/|node_modules\/lru-cache/],
  ['HTTP layer of fastcar (routes, replies, logs)', /src\/http\/|src\/controllers\//],
  ['microtask and callback plumbing', /^(runMicrotasks|\(program\)|processTicksAndRejections|callbackTrampoline)/],
];

function partOf(fn: string): string {
  return PARTS.find(([, pattern]) => pattern.test(fn))?.[0] ?? 'other';
}

function frameName({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const file = url ? relative(ROOT, url.replace('file://', '')) : '(native)';
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

async function main() {
  const { devnet } = await serveStoredChain(0);
  const proxy = await startProxy(proxyConfigFor([devnet.wsUrl], { port: 0, logLevel: 'silent' }), createLogger('silent'));
  const profileDir = mkdtempSync(join(tmpdir(), 'fastcar-profile-'));
  // PROFILE=off: the CPU figure without the profiler's own cost.
  const profiling = process.env.PROFILE !== 'off';
  // PROFILE_MAIN: another build's main.js, for an A/B comparison; PROFILE_ENV: more of fastcar's
  // environment (JSON). Node flags to try and a file for fastcar's output: BENCH_FASTCAR_NODE_ARGS,
  // BENCH_FASTCAR_STDOUT (harness/processes.ts).
  const fastcar = await startFastcarProcess(
    `ws://${proxy.address}`,
    { FASTCAR_CACHE_MAX_BYTES: '1', ...(process.env.PROFILE_ENV ? (JSON.parse(process.env.PROFILE_ENV) as Record<string, string>) : {}) },
    { main: process.env.PROFILE_MAIN, nodeArgs: profiling ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] },
  );
  const { url, pid } = fastcar;
  // PROFILE_BLOCK: one block asked 181 times per walk instead (17: the devnet's biggest).
  const only = process.env.PROFILE_BLOCK;
  const paths = (variant: number) => Array.from({ length: 181 }, (_, i) => `/blocks/${only ?? 20 + i}?paraId=${variant}`);
  // PROFILE_BIG: that many cold answers of the devnet's biggest block (17) first, as a process serving every kind of block has made.
  for (let i = 0; i < Number(process.env.PROFILE_BIG ?? 0); i++) await (await fetch(`${url}/blocks/17?paraId=${1000 + i}`)).arrayBuffer();
  // The first walk fills the proxy; the others let the JIT settle (PROFILE_WARMUP walks in all).
  for (let variant = 0; variant < WARMUP; variant++) await walk(url, paths(variant));
  const from = monotonicUs();
  let failed = 0;
  let [user, system, walkMs] = [0, 0, 0];
  const threadMs = new Map<string, number>();
  // PROFILE_GAP_MS: a pause before each measured walk, as when other services take their turns
  // (CPU is counted over the walks only, not over the pauses).
  const gapMs = Number(process.env.PROFILE_GAP_MS ?? 0);
  for (let variant = WARMUP; variant < WARMUP + WALKS; variant++) {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    const before = processCpuSplitMs(pid);
    const threadsBefore = threadCpuMs(pid);
    const walkStarted = performance.now();
    failed += await walk(url, paths(variant));
    walkMs += performance.now() - walkStarted;
    const after = processCpuSplitMs(pid);
    user += after.user - before.user;
    system += after.system - before.system;
    for (const [name, ms] of threadCpuMs(pid)) threadMs.set(name, (threadMs.get(name) ?? 0) + ms - (threadsBefore.get(name) ?? 0));
  }
  const blocks = WALKS * 181;
  const threads = [...threadMs].filter(([, ms]) => ms > 0);
  const cpu = user + system;
  const to = monotonicUs();
  const seconds = walkMs / 1000;
  console.log(
    `cold walk 20-200 x${WALKS}, c=${CONNECTIONS}, via warm proxy: ${(blocks / seconds).toFixed(1)} req/s, process CPU ${(cpu / blocks).toFixed(3)} ms per block (user ${(user / blocks).toFixed(3)}, system ${(system / blocks).toFixed(3)}), failed ${failed}`,
  );
  console.log(`  by thread, ms per block: ${threads.map(([name, ms]) => `${name} ${(ms / blocks).toFixed(3)}`).join(', ')}`);
  await fastcar.stop();
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!profiling) return shutDown();
  if (!file) throw new Error('no profile written');
  const { total, functions, files, inclusive, parts } = selfTimes(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile, from, to);
  const ms = (us: number) => (us / 1000 / blocks).toFixed(3);
  console.log(`\nself time per block over the measured walks, ms (idle included); total ${ms(total)}:`);
  for (const [name, us] of files) console.log(`  ${ms(us)}  ${name}`);
  console.log('\nby part of the work, ms per block:');
  for (const [name, us] of parts) console.log(`  ${ms(us)}  ${name}`);
  console.log('\ntop functions:');
  for (const [name, us] of functions) console.log(`  ${ms(us)}  ${name}`);
  console.log('\ninclusive, % of busy time:');
  const busy = total - (functions.find(([name]) => name.startsWith('(idle)'))?.[1] ?? 0);
  for (const [name, us] of inclusive) console.log(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${name}`);
  console.log(`\nprofile: ${join(profileDir, file)}`);
  return shutDown();

  async function shutDown() {
    await proxy.proxy.close();
    await devnet.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`profile failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
