// GET /blocks/stream on the devnet: blocks built while clients listen arrive once
// each, in order, each exactly the `/blocks/{n}` answer; a head that jumps several
// heights at once leaves no gap; clients resume after a disconnect without missing
// anything; a stalled client is dropped with a resume hint while others keep
// receiving; a thousand listeners cost the node what one does; the node away is
// announced and nothing is skipped when it is back. fastcar reaches the devnet
// through an RPC tap that can also lose finalized-head notifications.
import { Agent } from 'node:http';

import type { Devnet } from '../devnet/chain';
import type { Fastcar } from '../src/server';
import { freePort, startRedis, type Peer } from '../harness/processes';
import { startTap, type RpcTap } from '../harness/rpcTap';
import { openStream, type SseEvent, type SseStream } from '../harness/sseClient';
import { getJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';
import { startDevnet } from './support/devnet';
import { devnetSigner, type Signer } from './support/signer';

let devnet: Devnet;
let signer: Signer;
let relay: RpcTap;
let relayPort: number;
let fastcar: Fastcar;
/** Finalized-head notifications below this height are lost between the node and fastcar. */
let loseHeadsBelow = -1;
/** Opened first, left idle: it must see heartbeats by the end of the file. */
let idle: SseStream;
const open: SseStream[] = [];

const isHeadNotification = (message: unknown): number | undefined => {
  const { method, params } = message as { method?: string; params?: { result?: { number?: string } } };
  return method === 'chain_finalizedHead' && params?.result?.number ? parseInt(params.result.number, 16) : undefined;
};
const loseSome = (message: unknown) => {
  const number = isHeadNotification(message);
  return number !== undefined && number < loseHeadsBelow;
};

beforeAll(async () => {
  ({ devnet } = await startDevnet());
  signer = await devnetSigner(devnet.wsUrl);
  relayPort = await freePort();
  relay = await startTap(devnet.wsUrl, 0, relayPort, undefined, loseSome);
  fastcar = await startFastcarOn(relay.url, { FASTCAR_STREAM_BUFFER_BYTES: '65536', FASTCAR_MAX_STREAMS: '1100' });
  idle = await listen(`/blocks/head/header/stream?from=${4_000_000_000}`);
}, 180_000);

afterAll(async () => {
  for (const stream of open) stream.close();
  await fastcar?.close();
  await relay?.close();
  await signer?.close();
  await devnet?.close();
});

async function listen(path: string, headers: Record<string, string> = {}, agent?: Agent): Promise<SseStream> {
  const stream = await openStream(`${fastcar.url}${path}`, headers, agent);
  open.push(stream);
  return stream;
}

const heights = (events: SseEvent[]) => events.filter((event) => event.id !== undefined).map((event) => Number(event.id));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const finalizedHead = async () => Number(((await getJson(`${fastcar.url}/blocks/head/header`)).body as { number: string }).number);
const settle = (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms));
const build = async (transactions?: `0x${string}`[]) => (await devnet.chain.newBlock(transactions ? { transactions } : undefined)).number;

/** Every block event of `stream` is exactly what `path(n)` answers. */
async function expectAnswers(stream: SseStream, path: (n: number) => string) {
  for (const event of stream.events.filter((e) => e.id !== undefined)) {
    const answer = await getJson(`${fastcar.url}${path(Number(event.id))}`, { 'Accept-Encoding': 'identity' });
    expect([event.id, answer.status]).toEqual([event.id, 200]);
    expect(event.data === answer.text).toBe(true);
  }
}

describe('a stream', () => {
  it('sends every block built while it listens once, in order, each exactly as /blocks/{n} answers it, across a jump of the head', async () => {
    const head = await finalizedHead();
    const variants = ['', '?noFees=true&eventDocs=true&finalizedKey=false', '?useEvmFormat=true&extrinsicDocs=true', '?decodedXcmMsgs=true&paraId=2000'];
    const streams = await Promise.all(variants.map((query) => listen(`/blocks/stream${query}`)));
    const prefixed = await listen('/v1/blocks/stream');
    const headers = await listen('/blocks/head/header/stream');
    for (const stream of [...streams, prefixed, headers]) {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(stream.headers['x-accel-buffering']).toBe('no');
      expect(stream.headers['cache-control']).toBe('no-store');
    }
    // The node's notifications of the next two heights are lost: the head jumps by three at once.
    loseHeadsBelow = head + 3;
    for (let i = 0; i < 3; i++) await build();
    for (const stream of [...streams, prefixed, headers]) await stream.blocks(4);
    await settle(1000);
    loseHeadsBelow = -1;
    for (const stream of [...streams, prefixed, headers]) expect(heights(stream.events)).toEqual(range(head, head + 3));
    for (const [i, stream] of streams.entries()) await expectAnswers(stream, (n) => `/blocks/${n}${variants[i]}`);
    await expectAnswers(prefixed, (n) => `/v1/blocks/${n}`);
    await expectAnswers(headers, (n) => `/blocks/${n}/header`);
    for (const stream of [...streams, prefixed, headers]) stream.close();
  }, 120_000);

  it('resumes after a disconnect with Last-Event-ID or from, missing nothing, and waits for a from beyond the head', async () => {
    const first = await listen('/blocks/stream');
    const [start] = await first.blocks(1);
    const head = Number(start.id);
    first.close();
    await build();
    await build();
    const resumed = await listen('/blocks/stream', { 'Last-Event-ID': String(head) });
    const past = await listen(`/blocks/stream?from=${head - 5}`);
    const ahead = await listen(`/blocks/stream?from=${head + 4}`);
    await resumed.blocks(2);
    await past.blocks(8);
    expect(heights(ahead.events)).toEqual([]);
    // Caught up: the next heights come live, without a gap at the seam.
    await build();
    await build();
    await resumed.blocks(4);
    await past.blocks(10);
    await ahead.blocks(1);
    await settle(1000);
    expect(heights(resumed.events)).toEqual(range(head + 1, head + 4));
    expect(heights(past.events)).toEqual(range(head - 5, head + 4));
    expect(heights(ahead.events)).toEqual([head + 4]);
    await expectAnswers(past, (n) => `/blocks/${n}`);
    for (const stream of [resumed, past, ahead]) stream.close();
  }, 120_000);

  it('builds past heights for a catching-up client a few at a time, and nothing more once it leaves', async () => {
    relay.reset();
    // An option set no one asked for yet: every past height is built from the node.
    const stream = await listen('/blocks/stream?from=1&eventDocs=true&extrinsicDocs=true&noFees=true');
    const received = await stream.blocks(30);
    expect(heights(received)).toEqual(range(1, 30));
    stream.close();
    await settle(1500); // what was on its way when it left
    const atLeave = relay.counts.calls;
    await settle(2000);
    expect(relay.counts.calls).toBe(atLeave);
    console.log(`catching up: ${atLeave} node calls, at most ${relay.counts.peakPending} in flight`);
    // 4 past builds at once, each at most 4 calls in flight (its second wave), and once the
    // metadata of the genesis runtime (block 1 is decoded with the runtime at block 0).
    expect(relay.counts.peakPending).toBeLessThanOrEqual(4 * 4 + 1);
  }, 60_000);

  it('drops a client that stopped reading, with the height to resume from, while another keeps receiving; resuming there misses nothing', async () => {
    const stalled = await listen('/blocks/stream');
    const steady = await listen('/blocks/stream');
    const [start] = await stalled.blocks(1);
    const head = Number(start.id);
    await steady.blocks(1);
    stalled.pause();
    // Two blocks of 2 MB remarks: more than the kernel's socket buffers and the 64 KB allowed.
    await build([await signer.remark(2_000_000, 0xa1)]);
    await build([await signer.remark(2_000_000, 0xa2)]);
    const third = build();
    // Dropped at the second big block or at the next one; read again once it is, to take the final event.
    const dropped = async () => /^fastcar_stream_clients_dropped\{reason="lagging"\} 1$/m.test(await (await fetch(`${fastcar.metricsUrl}/metrics`)).text());
    const deadline = Date.now() + 60_000;
    while (!(await dropped()) && Date.now() < deadline) await settle(100);
    expect(await dropped()).toBe(true);
    stalled.resume();
    await third;
    await steady.blocks(4);
    expect(heights(steady.events)).toEqual(range(head, head + 3));
    await stalled.ended;
    const last = stalled.events[stalled.events.length - 1];
    expect(last.event).toBe('resume');
    const hint = JSON.parse(last.data) as { from: number; reason: string; message: string };
    expect(hint).toEqual({ from: expect.any(Number), reason: 'lagging', message: expect.any(String) });
    const received = heights(stalled.events);
    expect(received).toEqual(range(head, hint.from - 1));
    expect(hint.from).toBeLessThanOrEqual(head + 3);

    const again = await listen(`/blocks/stream?from=${hint.from}`);
    await again.blocks(head + 4 - hint.from);
    expect(heights(again.events)).toEqual(range(hint.from, head + 3));
    steady.close();
    again.close();
  }, 180_000);

  it('costs the node the same calls for a thousand listeners as for one', async () => {
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const one = await listen('/blocks/stream', {}, agent);
    const [start] = await one.blocks(1);
    const head = Number(start.id);
    relay.reset();
    await build();
    await one.blocks(2);
    await settle(1000); // the prebuilder's work for that block, shared or not, is done
    const alone = { ...relay.counts.methods };

    const many: SseStream[] = [one];
    while (many.length < 1000) {
      many.push(...(await Promise.all(Array.from({ length: Math.min(100, 1000 - many.length) }, () => listen('/blocks/stream', {}, agent)))));
    }
    await Promise.all(many.map((stream) => stream.waitFor((event) => event.id === String(head + 1))));
    relay.reset();
    await build();
    await Promise.all(many.map((stream) => stream.waitFor((event) => event.id === String(head + 2))));
    await settle(1000);
    const thousand = { ...relay.counts.methods };
    console.log(`node calls for one block: one listener ${JSON.stringify(alone)}, a thousand ${JSON.stringify(thousand)}`);
    expect(thousand).toEqual(alone);
    const payload = many[0].events.find((event) => event.id === String(head + 2))!.data;
    expect(many.every((stream) => stream.events.find((event) => event.id === String(head + 2))!.data === payload)).toBe(true);
    const metrics = await (await fetch(`${fastcar.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^fastcar_streams_open 10\d\d$/m);
    for (const stream of many) stream.close();
    agent.destroy();
  }, 180_000);

  it('says when the node is away and, once it is back, sends every height finalized meanwhile', async () => {
    const stream = await listen('/blocks/stream');
    const [start] = await stream.blocks(1);
    const head = Number(start.id);
    await relay.close();
    await stream.waitFor((event) => event.event === 'node-unavailable', 10_000);
    await build(); // finalized while fastcar cannot see it
    relay = await startTap(devnet.wsUrl, 0, relayPort, undefined, loseSome);
    await build();
    await stream.blocks(3);
    await stream.waitFor((event) => event.event === 'node-available', 10_000);
    await settle(1000);
    expect(heights(stream.events)).toEqual(range(head, head + 2));
    expect(stream.events.map((event) => event.event ?? 'block')).toEqual([
      'block',
      'node-unavailable',
      expect.any(String),
      expect.any(String),
      expect.any(String),
    ]);
    await expectAnswers(stream, (n) => `/blocks/${n}`);
    stream.close();
  }, 120_000);

  it.each([
    ['/blocks/stream?from=abc', {}],
    ['/blocks/stream?from=-1', {}],
    ['/blocks/stream?from=1.5', {}],
    ['/blocks/stream?from=99999999999', {}],
    ['/blocks/stream', { 'Last-Event-ID': 'twelve' }],
    ['/blocks/stream?noFees=maybe', {}],
    ['/blocks/stream?useRcBlock=true', {}],
    ['/blocks/head/header/stream?from=0x10', {}],
    ['/v1/blocks/stream?from=', {}],
  ])('refuses %s %j with a JSON 400 before streaming', async (path, headers) => {
    const response = await getJson(`${fastcar.url}${path}`, headers as Record<string, string>);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 400, message: expect.any(String) });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps idle streams alive with a comment line every 15 s', () => {
    // Opened before every other test here, which took well over 15 s.
    expect(idle.comments).toBeGreaterThan(1);
    expect(heights(idle.events)).toEqual([]);
  });
});

describe('FASTCAR_MAX_STREAMS', () => {
  it('refuses streams past the cap with a 503, takes new ones as others close, and ends open ones at shutdown with a resume hint', async () => {
    const capped = await startFastcarOn(devnet.wsUrl, { FASTCAR_MAX_STREAMS: '2' });
    try {
      const a = await openStream(`${capped.url}/blocks/stream`);
      const b = await openStream(`${capped.url}/blocks/head/header/stream`);
      const refused = await openStream(`${capped.url}/blocks/stream`);
      expect(refused.status).toBe(503);
      expect(JSON.parse(await refused.text())).toEqual({ code: 503, message: expect.stringContaining('Too many open streams (2)') });
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      b.close();
      await settle(200);
      const c = await openStream(`${capped.url}/blocks/stream`);
      expect(c.status).toBe(200);
      const [start] = await c.blocks(1);
      await a.blocks(1);
      await capped.close();
      await Promise.all([a.ended, c.ended]);
      for (const stream of [a, c]) {
        expect(stream.events[stream.events.length - 1]).toMatchObject({ event: 'resume', data: expect.stringContaining('"reason":"closing"') });
        expect(JSON.parse(stream.events[stream.events.length - 1].data).from).toBe(Number(start.id) + 1);
      }
    } finally {
      await capped.close().catch(() => undefined);
    }
  }, 60_000);
});

describe('with Redis shared by two instances', () => {
  let redis: Peer;

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  it('lets one instance stream from the answers the other built', async () => {
    const first = await startFastcarOn(devnet.wsUrl, { REDIS_URL: redis.url });
    const secondRelay = await startTap(devnet.wsUrl);
    const second = await startFastcarOn(secondRelay.url, { REDIS_URL: redis.url, FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      const live = await openStream(`${first.url}/blocks/stream?eventDocs=true`);
      const [start] = await live.blocks(1);
      const head = Number(start.id);
      await build();
      await live.blocks(2);
      await settle(300); // the Redis writes are not awaited by the build
      secondRelay.reset();
      const later = await openStream(`${second.url}/blocks/stream?eventDocs=true&from=${head}`);
      await later.blocks(2);
      expect(later.events.filter((e) => e.id).map((e) => e.data)).toEqual(live.events.filter((e) => e.id).map((e) => e.data));
      // Neither block was read from the node by the second instance.
      expect(secondRelay.counts.methods).not.toHaveProperty('chain_getBlock');
      live.close();
      later.close();
    } finally {
      await Promise.all([first.close(), second.close()]);
      await secondRelay.close();
    }
  }, 120_000);
});
