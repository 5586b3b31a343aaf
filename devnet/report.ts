// `npm run devnet:report`: how long the devnet takes to seed and to start, and
// how long sidecar takes for the biggest seeded block. Printed, not asserted.

import './quiet';
import { getJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';
import { startSidecar } from '../harness/processes';
import { serveStoredChain } from './cli';

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
}

async function main() {
  const [{ devnet, manifest }, startMs] = await timed(() => serveStoredChain(0));
  console.log(`seeding (stored in devnet/chain/manifest.json): ${manifest.seconds} s for blocks 0-${manifest.head.number}`);
  console.log(`devnet start from the stored chain: ${(startMs / 1000).toFixed(1)} s`);
  const big = manifest.blocks.big;
  const [[sidecar, fastcar], peersMs] = await timed(() => Promise.all([startSidecar(devnet.wsUrl), startFastcarOn(devnet.wsUrl)]));
  console.log(`sidecar and fastcar start: ${(peersMs / 1000).toFixed(1)} s`);
  // Both have the runtime's metadata loaded before the timed requests.
  await Promise.all([getJson(`${sidecar.url}/blocks/1`), getJson(`${fastcar.url}/blocks/1`)]);
  for (const [name, url] of [
    ['sidecar', sidecar.url],
    ['fastcar (first time)', fastcar.url],
    ['fastcar (again, cached)', fastcar.url],
  ] as const) {
    const [response, ms] = await timed(() => getJson(`${url}/blocks/${big}`));
    const count = (response.body as { extrinsics?: unknown[] }).extrinsics?.length ?? 0;
    console.log(
      `${name}: /blocks/${big} (${count} extrinsics, ${(response.text.length / 1e6).toFixed(2)} MB) in ${ms.toFixed(0)} ms, status ${response.status}`,
    );
  }
  await Promise.all([sidecar.stop(), fastcar.close()]);
  await devnet.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
