// decodedXcmMsgs on the devnet: a block is built with a downward message from the
// relay chain and a horizontal one from parachain 2000 (chopsticks puts them in the
// setValidationData inherent, as a collator would), then read back decoded.
// Sidecar 18 answers 500 for this parameter on this runtime (it reads the inherent
// layout of runtimes before polkadot-sdk stable2506), so the expectations are what
// was sent.
import { ApiPromise, WsProvider } from '@polkadot/api';

import type { Devnet } from '../devnet/chain';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { getJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';

let devnet: Devnet;
let api: ApiPromise;
let fastcar: Fastcar;
let number: number;
const topic = `0x${'11'.repeat(32)}`;
let downwardHex: string;

beforeAll(async () => {
  ({ devnet } = await startDevnet());
  api = await ApiPromise.create({ provider: new WsProvider(devnet.wsUrl), noInitWarn: true });
  downwardHex = api.createType('XcmVersionedXcm', { V4: [{ ClearOrigin: null }, { SetTopic: topic }] }).toHex();
  const horizontal = api.createType('XcmVersionedXcm', { V4: [{ ClearOrigin: null }] }).toU8a();
  // A horizontal payload starts with its format byte (0: versioned XCM programs).
  const payload = `0x00${Buffer.from(horizontal).toString('hex')}` as `0x${string}`;
  const block = await devnet.chain.newBlock({
    downwardMessages: [{ sentAt: 1, msg: downwardHex as `0x${string}` }],
    horizontalMessages: { 2000: [{ sentAt: 1, data: payload }] },
  } as unknown as Parameters<typeof devnet.chain.newBlock>[0]);
  number = block.number;
  fastcar = await startFastcarOn(devnet.wsUrl);
}, 180_000);

afterAll(async () => {
  await fastcar?.close();
  await api?.disconnect();
  await devnet?.close();
});

const downward = () => ({ sentAt: '1', msg: downwardHex, data: [{ v4: [{ clearOrigin: null }, { setTopic: topic }] }] });
const horizontal = { sentAt: expect.stringMatching(/^\d+$/), originParaId: '2000', data: [{ v4: [{ clearOrigin: null }] }] };

it('lists the downward and horizontal messages of a block, decoded, after `finalized`', async () => {
  const { status, body, text } = await getJson(`${fastcar.url}/blocks/${number}?decodedXcmMsgs=true`);
  expect(status).toBe(200);
  expect((body as { decodedXcmMsgs: unknown }).decodedXcmMsgs).toEqual({
    horizontalMessages: [horizontal],
    downwardMessages: [downward()],
    upwardMessages: [],
  });
  expect(Object.keys(body as object).slice(-2)).toEqual(['finalized', 'decodedXcmMsgs']);

  // Everything else is the plain answer, byte for byte; and the plain answer has no such field.
  const plain = await getJson(`${fastcar.url}/blocks/${number}`);
  expect(plain.text).not.toContain('decodedXcmMsgs');
  const { decodedXcmMsgs: _, ...rest } = body as Record<string, unknown>;
  expect(JSON.stringify(rest)).toBe(plain.text);

  // From the cache, the same bytes.
  const again = await getJson(`${fastcar.url}/blocks/${number}?decodedXcmMsgs=true`);
  expect(again.headers.get('x-cache')).toBe('hit');
  expect(again.text).toBe(text);
  expect(again.headers.get('etag')).not.toBe(plain.headers.get('etag'));
});

it('keeps only the messages the given parachain sent, and every downward message', async () => {
  const of = async (paraId: number) =>
    ((await getJson(`${fastcar.url}/blocks/${number}?decodedXcmMsgs=true&paraId=${paraId}`)).body as { decodedXcmMsgs: Record<string, unknown[]> })
      .decodedXcmMsgs;
  expect(await of(2000)).toEqual({ horizontalMessages: [horizontal], downwardMessages: [downward()], upwardMessages: [] });
  expect(await of(1000)).toEqual({ horizontalMessages: [], downwardMessages: [downward()], upwardMessages: [] });
  // 0 filters nothing, as in sidecar.
  expect((await of(0)).horizontalMessages).toHaveLength(1);
});

it('gives empty lists for a block without messages, also on /blocks/head and without `finalized`', async () => {
  const empty = { horizontalMessages: [], downwardMessages: [], upwardMessages: [] };
  const seeded = await getJson(`${fastcar.url}/blocks/5?decodedXcmMsgs=true&finalizedKey=false`);
  expect((seeded.body as Record<string, unknown>).decodedXcmMsgs).toEqual(empty);
  expect(seeded.body).not.toHaveProperty('finalized');
  const head = await getJson(`${fastcar.url}/blocks/head?decodedXcmMsgs=true`);
  expect(head.status).toBe(200);
  expect((head.body as Record<string, unknown>).decodedXcmMsgs).toBeDefined();
});

it.each(['abc', '-1', '1.5'])("answers paraId=%s with sidecar's 400", async (paraId) => {
  const { status, body } = await getJson(`${fastcar.url}/blocks/${number}?decodedXcmMsgs=true&paraId=${paraId}`);
  expect(status).toBe(400);
  expect(body).toEqual({ code: 400, message: 'paraId must be an integer' });
});
