// fastcar against the real substrate-api-sidecar 18, both on the same devnet:
// every seeded block, with and without fees, and the other /blocks endpoints.
import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { askBoth } from './support/sidecarCompare';
import { startSidecar, type Peer } from '../harness/processes';
import { startFastcarOn } from '../harness/fastcar';
import { eachLimited } from './support/eachLimited';

let devnet: Devnet;
let manifest: SeedManifest;
let sidecar: Peer;
let fastcar: Fastcar;

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  [sidecar, fastcar] = await Promise.all([startSidecar(devnet.wsUrl), startFastcarOn(devnet.wsUrl)]);
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close()]);
  await devnet?.close();
});

async function compare(path: string): Promise<unknown> {
  const { theirs, ours } = await askBoth(sidecar.url, fastcar.url, path);
  expect({ path, status: ours.status }).toEqual({ path, status: theirs.status });
  expect(ours.body).toEqual(theirs.body);
  return ours.body;
}

const allBlocks = () => Array.from({ length: manifest.head.number + 1 }, (_, n) => n);

it('serves every seeded block exactly as sidecar does, with fees', async () => {
  const kinds = new Set<string>();
  await eachLimited(allBlocks(), 4, async (n) => {
    const body = (await compare(`/blocks/${n}`)) as { extrinsics: { info: { kind?: string } }[] };
    for (const extrinsic of body.extrinsics) if (extrinsic.info.kind) kinds.add(extrinsic.info.kind);
  });
  // Both fee paths were exercised: fees from events, and the runtime query (fee paid in an asset).
  expect([...kinds].sort()).toEqual(['fromEvent', 'preDispatch']);
}, 600_000);

it('serves every seeded block exactly as sidecar does, without fees', async () => {
  await eachLimited(allBlocks(), 4, async (n) => {
    await compare(`/blocks/${n}?noFees=true`);
  });
}, 600_000);

it('matches sidecar on docs, hash ids, headers, head, ranges, single extrinsics and raw blocks', async () => {
  const interesting = Object.values(manifest.blocks);
  await eachLimited(interesting, 4, async (n) => {
    const block = (await compare(`/blocks/${n}?eventDocs=true&extrinsicDocs=true`)) as { hash: string; extrinsics: unknown[] };
    await compare(`/blocks/${block.hash}`);
    await compare(`/blocks/${n}/header`);
    await compare(`/blocks/${block.hash}/header`);
    await compare(`/blocks/${n}/extrinsics-raw`);
    await compare(`/blocks/${n}/extrinsics/${block.extrinsics.length - 1}`);
    await compare(`/blocks/${n}/extrinsics/0?noFees=true`);
  });
  await compare(`/blocks/${manifest.blocks.batches}?finalizedKey=false`);
  await compare('/blocks/head');
  await compare('/blocks/head?finalized=false');
  await compare('/blocks/head/header');
  await compare('/blocks/head/header?finalized=false');
  await compare('/blocks?range=0-30');
  await compare(`/blocks?range=${manifest.blocks.big - 1}-${manifest.blocks.big + 1}&noFees=true`);
  // Parameters a route does not use are ignored, as sidecar ignores them.
  await compare(`/blocks/${manifest.blocks.batches}?finalized=true`);
  await compare('/blocks/head/header?eventDocs=true');
  await compare(`/blocks/${manifest.blocks.transfers}/header?noFees=true`);
  // Block ids as sidecar's parsing takes them: pinned so that nothing drifts.
  for (const id of ['-0', '1.0', '%201', '1e1', '+3', '0b101', '0o7', '5.0', '0005', '1e2', '0X1F']) await compare(`/blocks/${id}`);
  await compare('/blocks?range=0x1-0x5');
  await compare('/blocks?range=1.0-3');
}, 600_000);

it('agrees with sidecar on the status and message of requests both reject', async () => {
  for (const path of [
    '/blocks/-1',
    '/blocks/abc',
    '/blocks/0x1234',
    '/blocks?range=5-1',
    '/blocks?range=0-501',
    '/blocks/1/extrinsics/999',
    '/blocks/head?finalized=maybe',
  ]) {
    const { theirs, ours } = await askBoth(sidecar.url, fastcar.url, path);
    expect({ path, status: ours.status }).toEqual({ path, status: theirs.status });
    expect((ours.body as { message: string }).message).toBe((theirs.body as { message: string }).message);
  }
}, 120_000);
