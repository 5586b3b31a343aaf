// fastcar over each door of a real node with its default limits (the node the read-only
// suites share): one fastcar on its WebSocket, one on its HTTP endpoint (the hosted-provider
// path: batched waves, a poll for the finalized head), and the same answers from both, field
// for field, for every seeded block, the big one, their headers, balances and runtime at
// those heights, and the head as it moves. The node's own limits are met in nodeLimits.test.ts.
import type { Devnet } from '../../devnet/chain';
import type { SeedManifest } from '../../devnet/seed';
import { startFastcarOn } from '../../harness/fastcar';
import { getJson } from '../../harness/http';
import type { Fastcar } from '../../src/server';
import { startDevnet } from '../support/devnet';

const ALICE = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';

let devnet: Devnet;
let manifest: SeedManifest;
let overWs: Fastcar;
let overHttp: Fastcar;

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  expect(devnet.wsUrl).toMatch(/^ws:/);
  expect(devnet.httpUrl).toMatch(/^http:/);
  [overWs, overHttp] = await Promise.all([
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' }),
    startFastcarOn(devnet.httpUrl, { FASTCAR_PREBUILD_BLOCKS: '0', FASTCAR_FINALIZED_POLL_MS: '500' }),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all([overWs?.close(), overHttp?.close()]);
  await devnet?.close();
});

async function bothDoors(path: string) {
  const [ws, http] = await Promise.all([getJson(overWs.url + path), getJson(overHttp.url + path)]);
  return { ws, http };
}

async function sameOverBoth(path: string): Promise<unknown> {
  const { ws, http } = await bothDoors(path);
  expect({ path, status: ws.status }).toEqual({ path, status: 200 });
  expect({ path, status: http.status, body: http.body }).toEqual({ path, status: 200, body: ws.body });
  return ws.body;
}

it('answers every seeded block the same over WebSocket and HTTP, with fees, and the big block', async () => {
  const heights = [0, 1, ...Object.values(manifest.blocks)];
  for (const height of heights) await sameOverBoth(`/blocks/${height}`);
  const big = (await sameOverBoth(`/blocks/${manifest.blocks.big}`)) as { extrinsics: unknown[] };
  expect(big.extrinsics.length).toBeGreaterThan(500);
  for (const height of heights) await sameOverBoth(`/blocks/${height}/header`);
}, 180_000);

it("answers an account's balance, the runtime and the pallets' storage at the seeded heights the same over both", async () => {
  for (const height of [manifest.blocks.endowments, manifest.blocks.transfers, manifest.blocks.feeInAsset, manifest.head.number]) {
    await sameOverBoth(`/accounts/${ALICE}/balance-info?at=${height}`);
    await sameOverBoth(`/runtime/spec?at=${height}`);
    await sameOverBoth(`/pallets/system/storage/number?at=${height}`);
  }
});

it('follows the moving head over both: the same head once both have seen the same block', async () => {
  // HTTP has no subscriptions: its head is polled, so for a moment it may be a block behind.
  const deadline = Date.now() + 30_000;
  let last: { ws: Awaited<ReturnType<typeof getJson>>; http: Awaited<ReturnType<typeof getJson>> } | undefined;
  for (;;) {
    last = await bothDoors('/blocks/head/header');
    expect([last.ws.status, last.http.status]).toEqual([200, 200]);
    if (JSON.stringify(last.ws.body) === JSON.stringify(last.http.body) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(last.http.body).toEqual(last.ws.body);
  const head = Number((last.ws.body as { number: string }).number);
  expect(head).toBeGreaterThan(manifest.head.number);
  await sameOverBoth(`/blocks/${head}`);
});
