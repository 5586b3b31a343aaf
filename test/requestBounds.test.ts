// What one request may cost the node: a range is checked against the head
// before anything is built, built a window at a time, and abandoned with its
// client. Counted on the wire by a relay between fastcar and the devnet.
import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import type { Fastcar } from '../src/server';
import { RANGE_WINDOW } from '../src/services/blocks/blocksService';
import { startTap, type RpcTap } from '../harness/rpcTap';
import { startDevnet } from './support/devnet';
import { getJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';

let devnet: Devnet;
let manifest: SeedManifest;
let relay: RpcTap;
let fastcar: Fastcar;

/** Calls one block costs at most when built cold: its hash and its parent's, then block, events, version, validators (fees by event). */
const CALLS_PER_BLOCK = 6;

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  relay = await startTap(devnet.wsUrl);
  // Nothing cached or built ahead: every block of a range costs its calls.
  fastcar = await startFastcarOn(relay.url, { FASTCAR_CACHE_MAX_BYTES: '0', FASTCAR_PREBUILD_BLOCKS: '0' });
  await getJson(`${fastcar.url}/blocks/1`); // the runtime, once
}, 120_000);

afterAll(async () => {
  await fastcar?.close();
  await relay?.close();
  await devnet?.close();
});

it('refuses a range past the head after one call, naming the head', async () => {
  const head = manifest.head.number;
  relay.reset();
  const answer = await getJson(`${fastcar.url}/blocks?range=${head + 1}-${head + 501}`);
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ code: 400, message: expect.stringContaining(`The largest known block number is ${head}`) });
  expect(relay.counts.calls).toBeLessThanOrEqual(2);
  const straddling = await getJson(`${fastcar.url}/blocks?range=${head - 5}-${head + 5}`);
  expect(straddling.status).toBe(400);
  expect(relay.counts.calls).toBeLessThanOrEqual(4);
});

it(`builds a range at most ${RANGE_WINDOW} blocks at a time`, async () => {
  relay.reset();
  const answer = await getJson(`${fastcar.url}/blocks?range=20-120`);
  expect(answer.status).toBe(200);
  expect((answer.body as unknown[]).length).toBe(101);
  console.log(`range of 101 blocks: ${relay.counts.calls} calls, at most ${relay.counts.peakPending} in flight`);
  expect(relay.counts.peakPending).toBeLessThanOrEqual(RANGE_WINDOW * CALLS_PER_BLOCK);
  expect(relay.counts.calls).toBeLessThanOrEqual(1 + 101 * CALLS_PER_BLOCK);
});

it('stops building a range when its client leaves', async () => {
  relay.setDelay(20);
  try {
    relay.reset();
    const stop = new AbortController();
    const request = fetch(`${fastcar.url}/blocks?range=1-190`, { signal: stop.signal })
      .then((r) => r.text())
      .catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop.abort();
    expect(await request).toBe('aborted');
    const atAbort = relay.counts.calls;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = relay.counts.calls - atAbort;
    console.log(`abandoned range: ${atAbort} calls before the client left, ${after} after`);
    // Only blocks already being built finish: at most a window of them.
    expect(after).toBeLessThanOrEqual(RANGE_WINDOW * CALLS_PER_BLOCK);
  } finally {
    relay.setDelay(0);
  }
});

it('answers a range compressed when asked, and whole', async () => {
  const plain = await getJson(`${fastcar.url}/blocks?range=30-60`);
  const response = await fetch(`${fastcar.url}/blocks?range=30-60`, { headers: { 'Accept-Encoding': 'gzip' } });
  expect(response.headers.get('content-encoding')).toBe('gzip');
  expect(await response.json()).toEqual(plain.body);
});
