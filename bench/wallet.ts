// `npm run bench:wallet`: the wallet rounds of `npm run bench` alone (bench/walletRounds.ts).
// BENCH_WALLET_DELAY_MS (5: each way), BENCH_WALLET_REQUESTS (400 per scenario),
// BENCH_WALLET_ACCOUNTS (2,000 per balance-info-over-distinct-accounts measurement),
// BENCH_WALLET_ONLY (a part of a scenario's name).
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { walletRounds, walletTable } from './walletRounds';

async function main() {
  const options = {
    delayMs: Number(process.env.BENCH_WALLET_DELAY_MS ?? 5),
    requests: Number(process.env.BENCH_WALLET_REQUESTS ?? 400),
    accounts: Number(process.env.BENCH_WALLET_ACCOUNTS ?? 2000),
    only: process.env.BENCH_WALLET_ONLY,
  };
  const rows = await walletRounds(options, (row) =>
    console.error(`  ${row.scenario} ${row.service}: ${row.rps} req/s, ${row.callsPerRequest} calls/req, non2xx ${row.non2xx}`),
  );
  console.log(walletTable(rows));
  // A partial run is printed, not kept over the full one.
  if (options.only) return;
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'wallet.json'), `${JSON.stringify({ date: new Date().toISOString(), ...options, rows }, null, 2)}\n`);
  console.log('written: bench/results/wallet.json');
}

// The node's executor threads outlive its close by a moment: the bench ends when its table is out.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
