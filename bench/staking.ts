// `npm run bench:staking`: a 10-era /accounts/{id}/staking-payouts and staking-info,
// fastcar against sidecar 20.14.1 in the same run, on the devnet with the eras of
// devnet/stakingEras.ts written into it at a real chain's size (CROWD: 300 validators an
// era, exposure pages as full as the runtime's MaxExposurePageSize allows), near (no
// delay) and far (BENCH_STAKING_DELAY_MS each way, 5 by default). Each service behind its
// own RPC tap; the devnet, the relays and both services each in a process of their
// own. First asks: each service started afresh (nothing kept), then asked for stakers it
// has not been asked about, one at a time and ten at a time. BENCH_STAKING_REQUESTS
// (0 by default) adds repeated questions, 10 at a time. Writes bench/results/staking.json.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { ApiPromise, WsProvider } from '@polkadot/api';
import { encodeAddress } from '@polkadot/util-crypto';

import { crowdNominator, crowdValidatorIds, type CrowdSize } from '../devnet/stakingCrowd';
import { FIRST_ERA, LAST_ERA, writeStakingEras, type StakingWorld } from '../devnet/stakingEras';
import { startDevnetProcess } from '../harness/devnetProcess';
import { startFastcarProcess, startSidecar, type Peer } from '../harness/processes';
import { startMemoTap } from '../harness/rpcTap';
import { startTapProcess, type RemoteTap } from '../harness/rpcTapProcess';
import { measure, walletTable, type Request, type Target, type WalletRow } from './walletRounds';

/** Polkadot elects 297 validators; the runtime's page size (64 on Westend's Asset Hub) sets the pages. */
const CROWD: CrowdSize = { validators: 297, nominators: 150, pagedEvery: 30 };
const CONNECTIONS = 10;

const payouts = (who: string) => ({ path: `/accounts/${who}/staking-payouts?depth=10&unclaimedOnly=false&era=${LAST_ERA}` });

/** How many pages, entries and validators an era holds, as the devnet lists them. */
async function eraSizes(api: ApiPromise, world: StakingWorld) {
  const pages = (await api.rpc.state.getKeysPaged(api.query.staking.erasStakersPaged.keyPrefix(LAST_ERA), 1000, undefined, world.hash)).length;
  const entries = await api.query.staking.erasStakersOverview.entriesAt(world.hash, LAST_ERA);
  const nominators = entries.reduce(
    (sum, [, overview]) => sum + Number((overview as unknown as { unwrap(): { nominatorCount: { toNumber(): number } } }).unwrap().nominatorCount.toNumber()),
    0,
  );
  return { validators: entries.length, pages, nominators, pageSize: Number(api.consts.staking.maxExposurePageSize.toString()) };
}

/**
 * chopsticks lists a prefix's keys by stepping through its storage layers key by key
 * (about two seconds for an era's pages, each time), where a node walks its trie in
 * milliseconds: the services reach the devnet through a relay that answers a listing it
 * has seen from memory, and every era's listing is asked through it once here.
 */
async function listErasOnce(url: string, hash: string) {
  const api = await ApiPromise.create({ provider: new WsProvider(url), noInitWarn: true });
  const staking = api.query.staking;
  for (let era = FIRST_ERA; era <= LAST_ERA; era++) {
    for (const map of [staking.erasStakersPaged, staking.erasStakersOverview, staking.erasStakersClipped].filter(Boolean)) {
      const prefix = map.keyPrefix(era);
      let start: string | undefined;
      for (;;) {
        const keys = await api.rpc.state.getKeysPaged(prefix, 1000, start ?? prefix, hash);
        if (keys.length < 1000) break;
        start = keys[keys.length - 1]?.toHex();
      }
    }
  }
  await api.disconnect();
}

async function startPair(devnetUrl: string, delay: number) {
  const [sidecarRelay, fastcarRelay] = await Promise.all([startTapProcess(devnetUrl, delay), startTapProcess(devnetUrl, delay)]);
  const [sidecar, fastcar] = await Promise.all([
    startSidecar(sidecarRelay.url, '/runtime/spec', {}, 20),
    startFastcarProcess(fastcarRelay.url, { FASTCAR_PREBUILD_BLOCKS: '0' }),
  ]);
  const targets: Target[] = [
    { service: 'fastcar', url: fastcar.url, relay: fastcarRelay },
    { service: 'sidecar', url: sidecar.url, relay: sidecarRelay },
  ];
  // Both have read the runtime once before anything is measured.
  for (const target of targets) await fetch(`${target.url}/runtime/spec`);
  const stop = async () => {
    await Promise.all([sidecar.stop(), fastcar.stop(), sidecarRelay.close(), fastcarRelay.close()]);
  };
  return { targets, peers: [sidecar, fastcar] as Peer[], relays: [sidecarRelay, fastcarRelay] as RemoteTap[], stop };
}

async function main() {
  const delayMs = Number(process.env.BENCH_STAKING_DELAY_MS ?? 5);
  const count = Number(process.env.BENCH_STAKING_REQUESTS ?? 0);
  const load = loadavg().map((one) => one.toFixed(2));
  const devnet = await startDevnetProcess();
  const peers: Peer[] = [];
  const closers: (() => Promise<void>)[] = [];
  const rows: WalletRow[] = [];
  let sizes: Awaited<ReturnType<typeof eraSizes>> | undefined;
  try {
    const api = await ApiPromise.create({ provider: new WsProvider(devnet.wsUrl), noInitWarn: true });
    const started = Date.now();
    const world = await writeStakingEras(api, CROWD);
    sizes = await eraSizes(api, world);
    console.error(`eras written and listed in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(sizes)}`);
    await api.disconnect();
    const memo = await startMemoTap(devnet.wsUrl, (call) => call.method === 'state_getKeysPaged', 64 * 1024 * 1024);
    closers.push(() => memo.close());
    await listErasOnce(memo.url, world.hash);
    const nodeUrl = memo.url;
    const validatorIds = crowdValidatorIds(CROWD).map((id) => encodeAddress(id, 42));
    const fillers = [0, 1, 2].map((k) => encodeAddress(crowdNominator(k * 1_000), 42));
    // Each asked once by a service that has only read the runtime.
    const firstAsks: [string, Request[]][] = [
      ['a nominator (16 validators an era)', [payouts(world.n1), payouts(world.n2)]],
      ['a validator', [payouts(world.v1), payouts(world.v3)]],
    ];
    const tenAtOnce = [world.n1, world.n2, ...fillers, world.v1, world.v2, world.v3, ...validatorIds.slice(40, 42)].map(payouts);
    const repeated: Request[] = Array.from({ length: count }, (_, i) => payouts([world.n1, world.n2, world.v1, world.v3][i % 4] as string));
    for (const [label, delay] of [
      ['', 0],
      [`+${delayMs}ms rpc: `, delayMs],
    ] as const) {
      for (const target of ['fastcar', 'sidecar']) {
        // One service at a time, each fresh: the other's work does not share the two cores.
        let pair = await startPair(nodeUrl, delay);
        peers.push(...pair.peers);
        const at = pair.targets.find((one) => one.service === target) as Target;
        for (const [who, requests] of firstAsks) {
          const row = await measure(`${label}staking-payouts, 10 eras, first ask, ${who}, one at a time`, at, requests, 1);
          rows.push(row);
          console.error(`  ${row.scenario} ${row.service}: p50 ${row.p50} ms, ${row.callsPerRequest} calls/req, ${row.wavesPerRequest} waves/req`);
        }
        await pair.stop();
        pair = await startPair(nodeUrl, delay);
        peers.push(...pair.peers);
        const fresh = pair.targets.find((one) => one.service === target) as Target;
        const row = await measure(`${label}staking-payouts, 10 eras, first asks, ten stakers at once`, fresh, tenAtOnce, CONNECTIONS);
        rows.push(row);
        console.error(`  ${row.scenario} ${row.service}: ${row.rps} req/s, p50 ${row.p50} ms, ${row.callsPerRequest} calls/req`);
        if (count > 0) {
          const again = await measure(`${label}staking-payouts, 10 eras, asked again`, fresh, repeated, CONNECTIONS);
          rows.push(again);
          console.error(`  ${again.scenario} ${again.service}: ${again.rps} req/s, p50 ${again.p50} ms`);
        }
        await pair.stop();
      }
    }
  } finally {
    await Promise.all(peers.map((peer) => peer.stop().catch(() => undefined)));
    for (const close of closers) await close();
    await devnet.close();
  }
  console.log(`load average at start: ${load.join(' ')}`);
  console.log(walletTable(rows));
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', 'staking.json'),
    `${JSON.stringify({ date: new Date().toISOString(), delayMs, requests: count, load, crowd: CROWD, eraSize: sizes, rows }, null, 2)}\n`,
  );
  console.log('written: bench/results/staking.json');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
