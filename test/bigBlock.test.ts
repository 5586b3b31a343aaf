// An inscription flood (signed system.remarkWithEvent, as harness/spamBlock.ts
// makes it) answered by fastcar over real JSON-RPC: every extrinsic and event
// read by the compiled codecs (no fallback to polkadot.js), fees from the
// events, and warm answers served while it is decoded.
import type { SeedManifest } from '../devnet/seed';
import type { Devnet } from '../devnet/chain';
import type { Fastcar } from '../src/server';
import { startFastcarOn } from '../harness/fastcar';
import { startSpamNode, type SpamNode } from '../harness/spamBlock';
import { decodeCounters } from '../src/services/blocks/bodyDecoding';
import { startDevnet } from './support/devnet';

const REMARKS = 1200;

let devnet: Devnet;
let spam: SpamNode;
let fastcar: Fastcar;
let remarkBlock: number;

beforeAll(async () => {
  let manifest: SeedManifest;
  ({ devnet, manifest } = await startDevnet());
  remarkBlock = manifest.blocks.bigRemarks;
  spam = await startSpamNode(devnet.wsUrl, { count: REMARKS, templateBlock: remarkBlock });
  fastcar = await startFastcarOn(spam.url, { FASTCAR_CACHE_MAX_BYTES: '1' });
}, 180_000);

afterAll(async () => {
  await fastcar?.close();
  await spam?.close();
  await devnet?.close();
});

interface Answer {
  number: string;
  extrinsics: {
    method: { pallet: string; method: string };
    signature: { signer: { id: string } } | null;
    success: boolean;
    info: { kind?: string };
    events: unknown[];
  }[];
}

it('answers every remark of the block through the compiled codecs, fees from the events', async () => {
  const before = { ...decodeCounters };
  const response = await fetch(`${fastcar.url}/blocks/${spam.hash}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as Answer;
  expect(body.number).toBe(String(spam.number));
  const remarks = body.extrinsics.filter((extrinsic) => extrinsic.method.method === 'remarkWithEvent');
  expect(remarks).toHaveLength(REMARKS);
  // The template remark's events, on each: withdraw, remarked, deposit, fee paid, success.
  const template = (await (await fetch(`${fastcar.url}/blocks/${remarkBlock}`)).json()) as Answer;
  const templateRemark = template.extrinsics.find((extrinsic) => extrinsic.method.method === 'remarkWithEvent' && extrinsic.signature)!;
  for (const remark of remarks) {
    expect(remark.signature?.signer.id).toMatch(/^5/);
    expect(remark.success).toBe(true);
    expect(remark.info.kind).toBe('fromEvent');
    expect(remark.events).toHaveLength(templateRemark.events.length);
  }
  expect(decodeCounters.compiled - before.compiled).toBeGreaterThanOrEqual(2); // this block, the template (and any the prebuilder made)
  expect(decodeCounters.fallback).toBe(before.fallback);
  // A block this size is decoded in slices, yielding to other requests in between.
  expect(decodeCounters.pauses).toBeGreaterThan(before.pauses);
  expect(await (await fetch(`${fastcar.metricsUrl}/metrics`)).text()).toMatch(/^fastcar_blocks_decoded_compiled \d+/m);
});

it('answers other requests while the block is being decoded', async () => {
  const pausesBefore = decodeCounters.pauses;
  const big = fetch(`${fastcar.url}/blocks/${spam.hash}?noFees=true`).then(async (response) => {
    await response.arrayBuffer();
    return performance.now();
  });
  // Once the decode has yielded (it would not, decoding in one go), a small request goes through in between.
  while (decodeCounters.pauses === pausesBefore) await new Promise((resolve) => setImmediate(resolve));
  const small = await fetch(`${fastcar.url}/blocks/head/header`).then(async (response) => {
    await response.arrayBuffer();
    return { at: performance.now(), status: response.status };
  });
  expect(small.status).toBe(200);
  expect(small.at).toBeLessThan(await big);
});
