// `npm run bench:load`: many concurrent connections against a cached and an
// uncached route of one fastcar process; prints errors, timeouts, latency and
// the process's peak RSS against its cache cap. Printed, never asserted.
import '../devnet/quiet';
import autocannon from 'autocannon';

import { serveStoredChain } from '../devnet/cli';
import { peakRssMb, startFastcarProcess } from '../harness/processes';

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

async function main() {
  const connections = flag('connections', 1000);
  const duration = flag('duration', 60);
  const cacheMb = flag('cache-mb', 64);
  const { devnet, manifest } = await serveStoredChain(0);
  const fastcar = await startFastcarProcess(devnet.wsUrl, { FASTCAR_CACHE_MAX_BYTES: String(cacheMb * 2 ** 20) });
  const { url, pid } = fastcar;
  const blocks = Array.from({ length: manifest.head.number }, (_, i) => i + 1);
  for (const n of blocks) await fetch(`${url}/blocks/${n}`); // everything cached
  const idleMb = peakRssMb(pid);

  const routes: [string, (i: number) => string][] = [
    ['cached: /blocks/{n}', (i) => `/blocks/${blocks[i % blocks.length]}`],
    ['uncached: /blocks/head?finalized=false', () => '/blocks/head?finalized=false'],
  ];
  console.log(`${connections} connections, ${duration}s per route, cache cap ${cacheMb} MB, RSS after priming ${idleMb} MB`);
  for (const [label, path] of routes) {
    let next = 0;
    const result = await autocannon({
      url,
      connections,
      duration,
      timeout: 30,
      requests: [{ setupRequest: (request) => ({ ...request, path: path(next++) }) }],
    });
    const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));
    console.log(
      `${label}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms, ` +
        `${result.errors} errors, ${result.timeouts} timeouts, statuses ${JSON.stringify(statuses)}, peak RSS so far ${peakRssMb(pid)} MB`,
    );
  }
  const peak = peakRssMb(pid);
  console.log(`peak RSS ${peak} MB = cache cap ${cacheMb} MB + ${peak - cacheMb} MB for the runtime, sockets and buffers`);
  await fastcar.stop();
  await devnet.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`load failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
