// `npm run bench:range`: the memory and time of the largest range the devnet
// holds (every block, with event and extrinsic docs), cold, fastcar against
// the real sidecar 18, each in a fresh process. fastcar streams a range a
// window of blocks at a time; sidecar builds the whole answer first.
// Prints the figures and writes bench/results/range.json.
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { serveStoredChain } from '../devnet/cli';
import { startSidecar, type Peer, peakRssMb, rssMb, startFastcarProcess } from '../harness/processes';

interface RangeFigures {
  service: string;
  blocks: number;
  seconds: number;
  megabytes: number;
  rssBeforeMb: number;
  peakRssMb: number;
}

async function measure(service: string, peer: Peer, path: string): Promise<RangeFigures> {
  // Both load the runtime first, so the figure is the range and not the metadata.
  await fetch(`${peer.url}/blocks/1`).then((r) => r.arrayBuffer());
  const rssBeforeMb = rssMb(peer.pid);
  const started = process.hrtime.bigint();
  const response = await fetch(`${peer.url}${path}`);
  const body = Buffer.from(await response.arrayBuffer());
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (response.status !== 200) throw new Error(`${service} answered ${response.status}: ${body.toString().slice(0, 200)}`);
  const blocks = (JSON.parse(body.toString()) as unknown[]).length;
  return {
    service,
    blocks,
    seconds: Math.round(seconds * 100) / 100,
    megabytes: Math.round(body.length / 1e5) / 10,
    rssBeforeMb,
    peakRssMb: peakRssMb(peer.pid),
  };
}

async function main() {
  const { devnet, manifest } = await serveStoredChain(0);
  const path = `/blocks?range=0-${manifest.head.number}&eventDocs=true&extrinsicDocs=true`;
  const figures: RangeFigures[] = [];
  try {
    const fastcar = await startFastcarProcess(devnet.wsUrl, { FASTCAR_CACHE_MAX_BYTES: '0', FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      figures.push(await measure('fastcar', fastcar, path));
    } finally {
      await fastcar.stop();
    }
    const sidecar = await startSidecar(devnet.wsUrl);
    try {
      figures.push(await measure('sidecar', sidecar, path));
    } finally {
      await sidecar.stop();
    }
  } finally {
    await devnet.close();
  }
  console.log(`GET ${path}, cold, each service in a fresh process:`);
  for (const f of figures) {
    console.log(
      `  ${f.service.padEnd(8)} ${f.blocks} blocks, ${f.megabytes} MB of JSON in ${f.seconds} s; RSS ${f.rssBeforeMb} MB before, peak ${f.peakRssMb} MB`,
    );
  }
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'range.json'), `${JSON.stringify({ date: new Date().toISOString(), path, figures }, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
