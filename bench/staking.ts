// `npm run bench:staking`: /accounts/{id}/staking-info and a 10-era staking-payouts,
// fastcar against sidecar 20.14.1 in the same run, on the devnet with the eras of
// devnet/stakingEras.ts written into it, near (no delay) and far (BENCH_STAKING_DELAY_MS
// each way, 5 by default). Each service behind its own counting relay; the devnet, the
// relays and both services each in a process of their own. BENCH_STAKING_REQUESTS
// (200 per scenario). Writes bench/results/staking.json.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { ApiPromise, WsProvider } from '@polkadot/api';

import { LAST_ERA, writeStakingEras } from '../devnet/stakingEras';
import { startDevnetProcess } from '../harness/devnetProcess';
import { startFastcarProcess, startSidecar, type Peer } from '../harness/processes';
import { startRelayProcess } from '../harness/relayProcess';
import { measure, walletTable, type Request, type Target, type WalletRow } from './walletRounds';

const CONNECTIONS = 10;

async function main() {
  const delayMs = Number(process.env.BENCH_STAKING_DELAY_MS ?? 5);
  const count = Number(process.env.BENCH_STAKING_REQUESTS ?? 200);
  const load = loadavg().map((one) => one.toFixed(2));
  const devnet = await startDevnetProcess();
  const peers: Peer[] = [];
  const rows: WalletRow[] = [];
  try {
    const api = await ApiPromise.create({ provider: new WsProvider(devnet.wsUrl), noInitWarn: true });
    const world = await writeStakingEras(api);
    await api.disconnect();
    const stakers = [world.n1, world.n2, world.v1, world.v3];
    const spread = (path: (who: string, i: number) => string): Request[] =>
      Array.from({ length: count }, (_, i) => ({ path: path(stakers[i % stakers.length] as string, i) }));
    const firstAsks: Request[] = stakers.flatMap((who) =>
      [0, 1, 2].map((back) => ({ path: `/accounts/${who}/staking-payouts?depth=10&unclaimedOnly=false&era=${LAST_ERA - back}` })),
    );
    const scenarios: [string, Request[]][] = [
      ['staking-info (84 eras of claims)', spread((who) => `/accounts/${who}/staking-info`)],
      ['staking-payouts, 10 eras', spread((who, i) => `/accounts/${who}/staking-payouts?depth=10&unclaimedOnly=false&era=${LAST_ERA - (i % 3)}`)],
    ];
    for (const [label, delay] of [
      ['', 0],
      [`+${delayMs}ms rpc: `, delayMs],
    ] as const) {
      const [sidecarRelay, fastcarRelay] = await Promise.all([startRelayProcess(devnet.wsUrl, delay), startRelayProcess(devnet.wsUrl, delay)]);
      const [sidecar, fastcar] = await Promise.all([
        startSidecar(sidecarRelay.url, '/runtime/spec', {}, 20),
        startFastcarProcess(fastcarRelay.url, { FASTCAR_PREBUILD_BLOCKS: '0' }),
      ]);
      peers.push(sidecar, fastcar);
      const targets: Target[] = [
        { service: 'fastcar', url: fastcar.url, relay: fastcarRelay },
        { service: 'sidecar', url: sidecar.url, relay: sidecarRelay },
      ];
      for (const target of targets) {
        // Both have read the runtime once before anything is measured.
        await fetch(`${target.url}/runtime/spec`);
        // Each question asked the first time, one at a time: nothing of it kept yet, by either.
        const first = await measure(`${label}staking-payouts, 10 eras, first asks, one at a time`, target, firstAsks, 1);
        rows.push(first);
        console.error(`  ${first.scenario} ${first.service}: p50 ${first.p50} ms, ${first.wavesPerRequest} waves/req`);
        for (const [scenario, requests] of scenarios) {
          const row = await measure(`${label}${scenario}`, target, requests, CONNECTIONS);
          rows.push(row);
          console.error(`  ${row.scenario} ${row.service}: ${row.rps} req/s, p50 ${row.p50} ms, ${row.callsPerRequest} calls/req, non2xx ${row.non2xx}`);
        }
        // One request at a time: the time one client waits, and the waves it costs.
        const single = scenarios[1]?.[1].slice(0, 24) ?? [];
        const row = await measure(`${label}staking-payouts, 10 eras, one at a time`, target, single, 1);
        rows.push(row);
        console.error(`  ${row.scenario} ${row.service}: p50 ${row.p50} ms, ${row.wavesPerRequest} waves/req`);
      }
      await Promise.all([sidecar.stop(), fastcar.stop(), sidecarRelay.close(), fastcarRelay.close()]);
    }
  } finally {
    await Promise.all(peers.map((peer) => peer.stop().catch(() => undefined)));
    await devnet.close();
  }
  console.log(`load average at start: ${load.join(' ')}`);
  console.log(walletTable(rows));
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', 'staking.json'),
    `${JSON.stringify({ date: new Date().toISOString(), delayMs, requests: count, load, rows }, null, 2)}\n`,
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
