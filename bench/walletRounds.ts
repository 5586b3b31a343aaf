// The wallet rounds of the benchmarks: the routes a wallet or an exchange syncs with,
// fastcar against sidecar's final line (20.14.1) on one devnet, each service behind its
// own RPC tap, near (no delay) and far (a delay each way). Scenarios: balance-info
// over many distinct accounts (a repeated account is answered from polkadot.js's own
// cache in sidecar, which no real sync is), new to the node or read by it once before,
// one account at many heights, transaction material, the runtime spec, pallet storage
// items and constants, a fee estimate, and a wallet's sync (its reads one after another,
// as a client does). `npm run bench` runs them after the block scenarios;
// `npm run bench:wallet` runs them alone. The devnet runs in a process of its own, as a
// node does, and so do the relays (the network): in the measuring process they would queue
// behind the load generator, which slows whichever service asks more of them per second.
import { ApiPromise, Keyring, WsProvider } from '@polkadot/api';
import { cryptoWaitReady, decodeAddress, encodeAddress, randomAsU8a } from '@polkadot/util-crypto';

import { startDevnetProcess, type DevnetProcess } from '../harness/devnetProcess';
import { startFastcarProcess, startPrapi, startSidecar, type Peer } from '../harness/processes';
import { startTapProcess, type RemoteTap } from '../harness/rpcTapProcess';
import { connectRpc, type RpcClient } from '../harness/rpcClient';
import { balanceKeys } from '../src/services/accounts/balanceStorage';

export interface WalletOptions {
  /** Added to every message each way between a service and the node in the far round. */
  delayMs: number;
  /** Requests per scenario. */
  requests: number;
  /**
   * Accounts in each balance-info-over-distinct-accounts measurement (the figure the wallet
   * goal is set on): more than the other scenarios' requests, since at ~700 req/s 400 are half
   * a second, where one stall of the machine moves the ratio by a tenth.
   */
  accounts: number;
  /** Only the scenarios whose name contains it (all when empty); a list: only those named exactly. */
  only?: string | string[];
  /** polkadot-rest-api's binary: a third service in every scenario (its routes under /v1). */
  prapiBin?: string;
}
const CONNECTIONS = 10;

export interface Request {
  path: string;
  method?: 'POST';
  body?: string;
}

export interface Target {
  service: 'fastcar' | 'sidecar' | 'prapi';
  url: string;
  relay: RemoteTap;
}

export interface WalletRow {
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

export async function measure(scenario: string, target: Target, requests: Request[], connections: number, perRequest = 1): Promise<WalletRow> {
  await target.relay.reset();
  const { seconds, times, non2xx } = await run(target, requests, connections);
  const counts = await target.relay.counts();
  const at = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))] * 10) / 10;
  const answered = requests.length / perRequest;
  return {
    scenario,
    service: target.service,
    rps: Math.round((answered / seconds) * 10) / 10,
    p50: at(0.5),
    p99: at(0.99),
    non2xx,
    callsPerRequest: Math.round((counts.calls / answered) * 10) / 10,
    wavesPerRequest: connections === 1 ? Math.round((counts.waves / answered) * 10) / 10 : undefined,
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

/**
 * Waits until the devnet has caught up with what it was asked before (its one thread may
 * still be answering the last measurement's stragglers): done when a read of a new key is
 * quick three times running (under 10 ms), or after 5 s.
 */
async function settle(rpc: RpcClient): Promise<void> {
  const until = Date.now() + 5_000;
  for (let quick = 0; quick < 3 && Date.now() < until; ) {
    const sent = performance.now();
    await rpc.call('state_getStorage', [balanceKeys(randomAsU8a(32)).account]);
    quick = performance.now() - sent < 10 ? quick + 1 : 0;
  }
}

/**
 * Has the devnet read each account's balance entries once, at its head: chopsticks then
 * finds them in its newest block's layer instead of walking every block's layer down to
 * the genesis spec, which is nearer what a node pays for a key in its trie.
 */
async function warmUp(rpc: RpcClient, accounts: string[]): Promise<void> {
  const head = await rpc.call<string>('chain_getBlockHash', []);
  const keys = accounts.flatMap((account) => Object.values(balanceKeys(decodeAddress(account))));
  for (let from = 0; from < keys.length; from += 200) await rpc.call('state_queryStorageAt', [keys.slice(from, from + 200), head]);
}

export function walletTable(rows: WalletRow[]): string {
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

/**
 * Both rounds (near, then far), each service measured alone on a quiet devnet; `startNode`
 * gives the node instead (bench/realNode.ts: polkadot-omni-node).
 */
export async function walletRounds(
  options: WalletOptions,
  log: (row: WalletRow) => void = () => undefined,
  startNode: () => Promise<DevnetProcess> = startDevnetProcess,
): Promise<WalletRow[]> {
  const devnet = await startNode();
  const rows: WalletRow[] = [];
  const peers: Peer[] = [];
  let direct: RpcClient | undefined;
  const { only } = options;
  const wanted = (scenario: string) => !only || (Array.isArray(only) ? only.includes(scenario) : scenario.includes(only));
  try {
    const { tx, alice } = await signedTransfer(devnet.wsUrl);
    const count = options.requests;
    // Accounts never asked before, new for each service in each round: the devnet pays far more
    // for a key it has not looked up yet than for one it has (warmUp), so a list shared between
    // them would give whoever comes second, and the far round, keys already warm.
    const freshAccounts = (length = count) => Array.from({ length }, () => encodeAddress(randomAsU8a(32), 42));
    const node = await connectRpc(devnet.wsUrl);
    direct = node;
    // A list for each service in each round, all read by the devnet before anything is measured.
    const warmLists = Array.from({ length: 4 }, () => freshAccounts(options.accounts));
    if (wanted('balance-info, distinct accounts the node has read before')) await warmUp(node, warmLists.flat());
    const warmedAccounts = async () => {
      const kept = warmLists.shift();
      if (kept) return kept;
      const accounts = freshAccounts(options.accounts);
      await warmUp(node, accounts);
      return accounts;
    };
    const heights = Array.from({ length: count }, (_, i) => 1 + (i % devnet.manifest.head.number));
    const repeated = (request: Request) => Array.from({ length: count }, () => request);
    const estimate: Request = { path: '/transaction/fee-estimate', method: 'POST', body: JSON.stringify({ tx }) };
    const balanceOf = (account: string): Request => ({ path: `/accounts/${account}/balance-info` });
    const scenarios: [string, () => Request[] | Promise<Request[]>][] = [
      ['balance-info, distinct accounts', () => freshAccounts(options.accounts).map(balanceOf)],
      ['balance-info, distinct accounts the node has read before', async () => (await warmedAccounts()).map(balanceOf)],
      ['balance-info, one account at distinct heights', () => heights.map((n) => ({ path: `/accounts/${alice}/balance-info?at=${n}` }))],
      ['transaction material (head)', () => repeated({ path: '/transaction/material?noMeta=true' })],
      ['runtime spec (head)', () => repeated({ path: '/runtime/spec' })],
      // A custodian's reads of pallet storage, by key (sidecar 20 mounts these on Asset Hub; 18 does not).
      [
        'storage item System.Account, distinct accounts',
        () => freshAccounts().map((account) => ({ path: `/pallets/system/storage/account?keys[]=${account}` })),
      ],
      [
        'storage item Assets.Account at distinct heights',
        () => heights.map((n) => ({ path: `/pallets/assets/storage/account?keys[]=1&keys[]=${alice}&at=${n}` })),
      ],
      ['pallet constants (Balances, head)', () => repeated({ path: '/pallets/balances/consts' })],
      ['fee estimate, one transaction', () => repeated(estimate)],
    ];
    // A wallet's sync: its reads one after another (balance, material, spec, estimate, head), one wallet at a time.
    const sync: Request[] = [
      { path: `/accounts/${alice}/balance-info` },
      { path: '/transaction/material?noMeta=true' },
      { path: '/runtime/spec' },
      estimate,
      { path: '/blocks/head/header' },
    ];
    const syncScenario = `wallet sync (${sync.length} calls, one after another)`;
    for (const [label, delayMs] of [
      ['', 0],
      [`+${options.delayMs}ms rpc: `, options.delayMs],
    ] as const) {
      const [sidecarRelay, fastcarRelay, prapiRelay] = await Promise.all(
        [0, 1, ...(options.prapiBin ? [2] : [])].map(() => startTapProcess(devnet.wsUrl, delayMs)),
      );
      const [sidecar, fastcar, prapi] = await Promise.all([
        startSidecar(sidecarRelay.url, '/runtime/spec', {}, 20),
        startFastcarProcess(fastcarRelay.url, { FASTCAR_PREBUILD_BLOCKS: '0' }),
        ...(options.prapiBin && prapiRelay ? [startPrapi(options.prapiBin, prapiRelay.url)] : []),
      ]);
      peers.push(sidecar, fastcar, ...(prapi ? [prapi] : []));
      const targets: Target[] = [
        { service: 'fastcar', url: fastcar.url, relay: fastcarRelay },
        { service: 'sidecar', url: sidecar.url, relay: sidecarRelay },
        // Its routes are sidecar's under /v1.
        ...(prapi && prapiRelay ? [{ service: 'prapi' as const, url: `${prapi.url}/v1`, relay: prapiRelay }] : []),
      ];
      for (const target of targets) {
        // Both have read the runtime and the chain's facts once before anything is measured.
        await fetch(`${target.url}/runtime/spec`);
        await fetch(`${target.url}/transaction/material?noMeta=true`);
        // And the estimate once: measured is a fleet of wallets asking it again, not the runtime's first call.
        await fetch(`${target.url}${estimate.path}`, { method: 'POST', body: estimate.body, headers: { 'content-type': 'application/json' } });
      }
      // Each scenario on both services back to back: on a shared machine, a load that comes and
      // goes then falls on both sides of a ratio, not on one service's whole list. Each starts
      // on a devnet that has caught up with the one before (settle).
      const measured = targets.map((): WalletRow[] => []);
      const both = async (scenario: string, requests: () => Request[] | Promise<Request[]>, connections: number, perRequest = 1) => {
        for (const [i, target] of targets.entries()) {
          const asked = await requests();
          await settle(node);
          const row = await measure(`${label}${scenario}`, target, asked, connections, perRequest);
          measured[i]?.push(row);
          log(row);
        }
      };
      for (const [scenario, requests] of scenarios) if (wanted(scenario)) await both(scenario, requests, CONNECTIONS);
      const syncs = Array.from({ length: 20 }, () => sync).flat();
      if (wanted(syncScenario)) await both(syncScenario, () => syncs, 1, sync.length);
      rows.push(...measured.flat());
      await Promise.all([...peers.splice(0).map((peer) => peer.stop()), sidecarRelay.close(), fastcarRelay.close(), prapiRelay?.close()]);
    }
  } finally {
    direct?.close();
    await Promise.all(peers.map((peer) => peer.stop().catch(() => undefined)));
    await devnet.close();
  }
  return rows;
}
