// `npm run bench:proxy`: what the caching proxy costs and saves. Prints the
// overhead of a cached call against the same call made to the node directly,
// cached calls per second, and upstream calls saved while the REST service
// serves block ranges through it. Printed, never asserted.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WsProvider } from '@polkadot/rpc-provider';

import { serveStoredChain } from '../devnet/cli';
import { createLogger } from '../src/logger';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import { startProxy } from '../src/proxy/startProxy';
import { startFastcarOn } from '../harness/fastcar';

function percentile(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 1000) / 1000;
}

async function latencies(provider: WsProvider, method: string, params: unknown[], count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await provider.send(method, params);
    out.push(performance.now() - started);
  }
  return out.sort((a, b) => a - b);
}

async function main() {
  const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 2000;
  const { devnet, manifest } = await serveStoredChain(0);
  const { proxy, address, pool } = await startProxy(proxyConfigFor([devnet.wsUrl], { port: 0, logLevel: 'silent' }), createLogger('silent'));
  const direct = new WsProvider(devnet.wsUrl, false);
  const proxied = new WsProvider(`ws://${address}`, false);
  await Promise.all([direct.connect(), proxied.connect()]);
  await Promise.all([direct.isReady, proxied.isReady]);

  const hash = (await direct.send('chain_getBlockHash', [manifest.blocks.transfers])) as string;
  await proxied.send('chain_getBlock', [hash]); // now cached
  const directTimes = await latencies(direct, 'chain_getBlock', [hash], calls);
  const proxyTimes = await latencies(proxied, 'chain_getBlock', [hash], calls);
  const overhead = {
    direct: { p50: percentile(directTimes, 50), p99: percentile(directTimes, 99) },
    proxyCached: { p50: percentile(proxyTimes, 50), p99: percentile(proxyTimes, 99) },
  };
  console.log(`chain_getBlock at a hash, ${calls} calls one after another (ms):`);
  console.log(`  direct to the node: p50 ${overhead.direct.p50}, p99 ${overhead.direct.p99}`);
  console.log(`  through the proxy, cached: p50 ${overhead.proxyCached.p50}, p99 ${overhead.proxyCached.p99}`);

  const clients = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const provider = new WsProvider(`ws://${address}`, false);
      await provider.connect();
      await provider.isReady;
      return provider;
    }),
  );
  const deadline = performance.now() + 5000;
  let served = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline) {
        await client.send('chain_getBlock', [hash]);
        served += 1;
      }
    }),
  );
  const cachedPerSecond = Math.round(served / 5);
  console.log(`cached calls per second through the proxy (10 clients): ${cachedPerSecond}`);

  // The REST service with its own cache off, serving ranges through the proxy.
  const fastcar = await startFastcarOn(`ws://${address}`, { FASTCAR_CACHE_MAX_BYTES: '1' });
  const upstreamBefore = pool.upstreams.reduce((sum, u) => sum + u.calls, 0);
  let restCalls = 0;
  for (let round = 0; round < 3; round++) {
    for (const range of ['1-50', '51-100', '101-150']) {
      const response = await fetch(`${fastcar.url}/blocks?range=${range}&noFees=true`);
      await response.text();
      restCalls += Number(response.headers.get('x-rpc-calls'));
    }
  }
  const upstream = pool.upstreams.reduce((sum, u) => sum + u.calls, 0) - upstreamBefore;
  const saved = { restServiceCalls: restCalls, upstreamCalls: upstream, savedPercent: Math.round((1 - upstream / restCalls) * 1000) / 10 };
  console.log(`block ranges 1-150 three times: the REST service made ${restCalls} calls, the proxy sent ${upstream} upstream (${saved.savedPercent}% saved)`);

  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', 'proxy.json'),
    `${JSON.stringify({ date: new Date().toISOString(), calls, overhead, cachedPerSecond, saved }, null, 2)}\n`,
  );
  await Promise.all([...clients, direct, proxied].map((provider) => provider.disconnect()));
  await fastcar.close();
  await proxy.close();
  await devnet.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:proxy failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
