// `npm run bench:relay`: what `useRcBlock=true` costs. Asset Hub is the devnet; its
// relay chain is recorded Polkadot history whose relay block 18468942 includes a
// devnet block (harness/relayChain.ts). Sidecar 18, the newest on the registry, has no
// useRcBlock, so the comparison is with fastcar's own answer for the same Asset Hub
// block asked for directly. In one run:
//   - cold: each request a new answer (cache off, a new paraId each time), one at a time;
//   - warm: autocannon, 4 connections, 5 s, cache on.
// Prints the figures and writes bench/results/relay.json.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

import { serveStoredChain } from '../devnet/cli';
import { startFastcarProcess, type Peer } from '../harness/processes';
import { RELAY_BLOCK, startRelayBeside } from '../harness/relayChain';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value: number) => Math.round(value * 10) / 10;

async function coldMs(peer: Peer, path: (i: number) => string): Promise<number> {
  for (let i = 0; i < 3; i++) await (await fetch(peer.url + path(900 + i))).arrayBuffer(); // warm code, not data
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const started = performance.now();
    const response = await fetch(peer.url + path(i));
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${path(i)}: ${response.status}`);
    times.push(performance.now() - started);
  }
  return round(median(times));
}

async function warm(peer: Peer, path: string): Promise<{ rps: number; p99Ms: number }> {
  await (await fetch(peer.url + path)).arrayBuffer();
  const result = await autocannon({ url: peer.url + path, connections: 4, duration: 5 });
  if (result.non2xx > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers`);
  return { rps: round(result.requests.average), p99Ms: result.latency.p99 };
}

async function main(): Promise<void> {
  const started = Date.now();
  const { devnet, manifest } = await serveStoredChain(0);
  const { node: relay, included } = await startRelayBeside(devnet.wsUrl, manifest.blocks.transfers);
  const env = { FASTCAR_RELAY_URL: relay.url, FASTCAR_PREBUILD_BLOCKS: '0' };
  const figures: Record<string, unknown> = {};
  const say = (line: string) => console.log(line);

  const cold = await startFastcarProcess(devnet.wsUrl, { ...env, FASTCAR_CACHE_MAX_BYTES: '1' });
  try {
    const direct = await coldMs(cold, (i) => `/blocks/${included.number}?paraId=${i}`);
    const viaRelay = await coldMs(cold, (i) => `/blocks/${RELAY_BLOCK}?useRcBlock=true&paraId=${i}`);
    figures.cold = { directMs: direct, useRcBlockMs: viaRelay };
    say(
      `cold: /blocks/${included.number} ${direct} ms; /blocks/${RELAY_BLOCK}?useRcBlock=true (the same block, found through the relay chain) ${viaRelay} ms -> +${round(viaRelay - direct)} ms`,
    );
  } finally {
    await cold.stop();
  }

  const hot = await startFastcarProcess(devnet.wsUrl, env);
  try {
    const direct = await warm(hot, `/blocks/${included.number}`);
    const viaRelay = await warm(hot, `/blocks/${RELAY_BLOCK}?useRcBlock=true`);
    figures.warm = { direct, useRcBlock: viaRelay };
    say(`warm, c=4: direct ${direct.rps} req/s (p99 ${direct.p99Ms} ms); useRcBlock ${viaRelay.rps} req/s (p99 ${viaRelay.p99Ms} ms)`);
  } finally {
    await hot.stop();
  }

  await relay.close();
  await devnet.close();
  const out = join(__dirname, 'results');
  mkdirSync(out, { recursive: true });
  const seconds = Math.round((Date.now() - started) / 1000);
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]
      ?.model.replace(/\s+\d+-Core.*$/, '')
      .trim(),
    node: process.version,
  };
  writeFileSync(join(out, 'relay.json'), `${JSON.stringify({ date: new Date().toISOString(), machine, seconds, figures }, null, 1)}\n`);
  say(`written: bench/results/relay.json (${seconds}s)`);
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
