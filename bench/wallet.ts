// `npm run bench:wallet`: the routes a wallet or an exchange syncs with, fastcar against
// sidecar's final line (20.14.1) on the same devnet in one run, each service behind its
// own counting relay, near (no delay) and far (BENCH_WALLET_DELAY_MS each way, 5 by
// default). Scenarios: balance-info over many distinct accounts (a repeated account is
// answered from polkadot.js's own cache in sidecar, which no real sync is), transaction
// material, the runtime spec, pallet storage items and constants, a fee estimate, and a
// wallet's sync (its reads one after another, as a client does). A route a build does not
// serve yet is reported as such. BENCH_WALLET_ONLY=text runs only the scenarios naming it.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiPromise, Keyring, WsProvider } from '@polkadot/api';
import { cryptoWaitReady, encodeAddress, randomAsU8a } from '@polkadot/util-crypto';

import { serveStoredChain } from '../devnet/cli';
import { startFastcarProcess, startSidecar, type Peer } from '../harness/processes';
import { startRelay, type Relay } from '../harness/relay';

const DELAY_MS = Number(process.env.BENCH_WALLET_DELAY_MS ?? 5);
const REQUESTS = Number(process.env.BENCH_WALLET_REQUESTS ?? 400);
const CONNECTIONS = 10;
/** Only the scenarios whose name holds this text (all when unset); the wallet sync runs when it is unset. */
const ONLY = process.env.BENCH_WALLET_ONLY ?? '';

interface Request {
  path: string;
  method?: 'POST';
  body?: string;
}

interface Target {
  service: 'fastcar' | 'sidecar';
  url: string;
  relay: Relay;
}

interface Row {
  scenario: string;
  service: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  callsPerRequest: number;
  wavesPerRequest?: number;
}

/** Sends each request once, `connections` at a time; latencies of each. */
async function run(target: Target, requests: Request[], connections: number): Promise<{ seconds: number; times: number[]; non2xx: number }> {
  const queue = [...requests];
  const times: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let request = queue.shift(); request !== undefined; request = queue.shift()) {
        const sent = performance.now();
        const response = await fetch(target.url + request.path, {
          method: request.method ?? 'GET',
          body: request.body,
          headers: request.body ? { 'content-type': 'application/json' } : undefined,
        });
        await response.arrayBuffer();
        if (!response.ok) non2xx += 1;
        times.push(performance.now() - sent);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, times: times.sort((a, b) => a - b), non2xx };
}

async function measure(scenario: string, target: Target, requests: Request[], connections: number, perRequest = 1): Promise<Row> {
  target.relay.reset();
  const { seconds, times, non2xx } = await run(target, requests, connections);
  const at = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))] * 10) / 10;
  const answered = requests.length / perRequest;
  return {
    scenario,
    service: target.service,
    rps: Math.round((answered / seconds) * 10) / 10,
    p50: at(0.5),
    p99: at(0.99),
    non2xx,
    callsPerRequest: Math.round((target.relay.counts.calls / answered) * 10) / 10,
    wavesPerRequest: connections === 1 ? Math.round((target.relay.counts.waves / answered) * 10) / 10 : undefined,
  };
}

async function signedTransfer(wsUrl: string): Promise<{ tx: string; alice: string }> {
  await cryptoWaitReady();
  const api = await ApiPromise.create({ provider: new WsProvider(wsUrl), noInitWarn: true });
  try {
    const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
    const [alice, bob] = [keyring.addFromUri('//Alice'), keyring.addFromUri('//Bob')];
    const signed = await api.tx.balances.transferKeepAlive(bob.address, 1_000_000_000_000n).signAsync(alice);
    return { tx: signed.toHex(), alice: alice.address };
  } finally {
    await api.disconnect();
  }
}

function table(rows: Row[]): string {
  const lines = ['| scenario | service | req/s | p50 ms | p99 ms | non2xx | rpc/req | waves/req | x sidecar |', '|---|---|---|---|---|---|---|---|---|'];
  for (const row of rows) {
    const peer = rows.find((other) => other.scenario === row.scenario && other.service === 'sidecar');
    const ratio = row.service === 'fastcar' && peer && peer.rps > 0 && row.non2xx === 0 ? `${(row.rps / peer.rps).toFixed(1)}x` : '';
    lines.push(
      `| ${row.scenario} | ${row.service} | ${row.rps} | ${row.p50} | ${row.p99} | ${row.non2xx} | ${row.callsPerRequest} | ${row.wavesPerRequest ?? ''} | ${ratio} |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  const { devnet, manifest } = await serveStoredChain(0);
  const rows: Row[] = [];
  const peers: Peer[] = [];
  try {
    const { tx, alice } = await signedTransfer(devnet.wsUrl);
    const distinctAccounts = Array.from({ length: REQUESTS }, () => encodeAddress(randomAsU8a(32), 42));
    const heights = Array.from({ length: REQUESTS }, (_, i) => 1 + (i % manifest.head.number));
    const scenarios: [string, Request[], number][] = [
      ['balance-info, distinct accounts', distinctAccounts.map((account) => ({ path: `/accounts/${account}/balance-info` })), CONNECTIONS],
      ['balance-info, one account at distinct heights', heights.map((n) => ({ path: `/accounts/${alice}/balance-info?at=${n}` })), CONNECTIONS],
      ['transaction material (head)', Array.from({ length: REQUESTS }, () => ({ path: '/transaction/material?noMeta=true' })), CONNECTIONS],
      ['runtime spec (head)', Array.from({ length: REQUESTS }, () => ({ path: '/runtime/spec' })), CONNECTIONS],
      // A custodian's reads of pallet storage, by key (sidecar 20 mounts these on Asset Hub; 18 does not).
      [
        'storage item System.Account, distinct accounts',
        distinctAccounts.map((account) => ({ path: `/pallets/system/storage/account?keys[]=${account}` })),
        CONNECTIONS,
      ],
      [
        'storage item Assets.Account at distinct heights',
        heights.map((n) => ({ path: `/pallets/assets/storage/account?keys[]=1&keys[]=${alice}&at=${n}` })),
        CONNECTIONS,
      ],
      ['pallet constants (Balances, head)', Array.from({ length: REQUESTS }, () => ({ path: '/pallets/balances/consts' })), CONNECTIONS],
      [
        'fee estimate, one transaction',
        Array.from({ length: REQUESTS }, () => ({ path: '/transaction/fee-estimate', method: 'POST' as const, body: JSON.stringify({ tx }) })),
        CONNECTIONS,
      ],
    ];
    // A wallet's sync: its reads one after another (balance, material, spec, estimate, head), one wallet at a time.
    const sync: Request[] = [
      { path: `/accounts/${alice}/balance-info` },
      { path: '/transaction/material?noMeta=true' },
      { path: '/runtime/spec' },
      { path: '/transaction/fee-estimate', method: 'POST', body: JSON.stringify({ tx }) },
      { path: '/blocks/head/header' },
    ];
    for (const [label, delayMs] of [
      ['', 0],
      [`+${DELAY_MS}ms rpc: `, DELAY_MS],
    ] as const) {
      const [sidecarRelay, fastcarRelay] = await Promise.all([startRelay(devnet.wsUrl, delayMs), startRelay(devnet.wsUrl, delayMs)]);
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
        // Both have read the runtime and the chain's facts once before anything is measured.
        await fetch(`${target.url}/runtime/spec`);
        await fetch(`${target.url}/transaction/material?noMeta=true`);
        for (const [scenario, requests, connections] of scenarios.filter(([name]) => name.includes(ONLY))) {
          const row = await measure(`${label}${scenario}`, target, requests, connections);
          rows.push(row);
          console.error(`  ${row.scenario} ${row.service}: ${row.rps} req/s, ${row.callsPerRequest} calls/req, non2xx ${row.non2xx}`);
        }
        if (ONLY) continue;
        const syncs = Array.from({ length: 20 }, () => sync).flat();
        rows.push(await measure(`${label}wallet sync (5 calls, one after another)`, target, syncs, 1, sync.length));
      }
      await Promise.all([sidecar.stop(), fastcar.stop(), sidecarRelay.close(), fastcarRelay.close()]);
    }
  } finally {
    await Promise.all(peers.map((peer) => peer.stop().catch(() => undefined)));
    await devnet.close();
  }
  console.log(table(rows));
  // A partial run is printed, not kept over the full one.
  if (ONLY) return;
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', 'wallet.json'),
    `${JSON.stringify({ date: new Date().toISOString(), delayMs: DELAY_MS, requests: REQUESTS, rows }, null, 2)}\n`,
  );
  console.log('written: bench/results/wallet.json');
}

// The devnet's executor threads outlive its close by a moment: the bench ends when its table is out.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
