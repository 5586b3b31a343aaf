// GET /extrinsics/{hash} on the devnet: an extrinsic submitted after start is found
// by hash in its block, as /blocks/{n}/extrinsics/{i} shows it; hashes outside the
// indexed window are a 404 that names the window, and ?from&to searches other
// heights; bad hashes and windows are 400s; with Redis, a second instance fills
// its window from what the first one read, without reading blocks from the node.
import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import type { Fastcar } from '../src/server';
import { startRedis, type Peer } from '../harness/processes';
import { startTap, type RpcTap } from '../harness/rpcTap';
import { getJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';
import { startDevnet } from './support/devnet';
import { devnetSigner, type Signer } from './support/signer';

const WINDOW = 30;
let devnet: Devnet;
let manifest: SeedManifest;
let signer: Signer;
let redis: Peer;
let relay: RpcTap;
let fastcar: Fastcar;

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  signer = await devnetSigner(devnet.wsUrl);
  redis = await startRedis();
  relay = await startTap(devnet.wsUrl);
  fastcar = await startFastcarOn(relay.url, { FASTCAR_EXTRINSIC_INDEX_BLOCKS: String(WINDOW), REDIS_URL: redis.url });
  await waitForIndex(fastcar, WINDOW);
}, 180_000);

afterAll(async () => {
  await fastcar?.close();
  await relay?.close();
  await signer?.close();
  await redis?.stop();
  await devnet?.close();
});

const metric = async (instance: Fastcar, name: string) =>
  Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await (await fetch(`${instance.metricsUrl}/metrics`)).text())?.[1]);

async function waitForIndex(instance: Fastcar, blocks: number) {
  const deadline = Date.now() + 60_000;
  while ((await metric(instance, 'fastcar_extrinsic_index_blocks')) < blocks && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await metric(instance, 'fastcar_extrinsic_index_blocks')).toBe(blocks);
}

type Found = { blockNumber: string; blockHash: string; index: string; extrinsic: { hash: string } };

/** The seeded extrinsic at `height`, index `index`, as /blocks/{n} lists it. */
async function seededHash(height: number, index: number): Promise<string> {
  const block = (await getJson(`${fastcar.url}/blocks/${height}`)).body as { extrinsics: { hash: string }[] };
  return block.extrinsics[index].hash;
}

it('finds an extrinsic submitted after start in the block it landed in, as /blocks/{n}/extrinsics/{i} shows it', async () => {
  const hash = (await signer.api.rpc.author.submitExtrinsic(await signer.transfer(7n * 10n ** 12n))).toHex();
  expect((await getJson(`${fastcar.url}/extrinsics/${hash}`)).status).toBe(404);
  const built = await devnet.chain.newBlock();
  let answer = await getJson(`${fastcar.url}/extrinsics/${hash}`);
  const deadline = Date.now() + 20_000;
  while (answer.status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await getJson(`${fastcar.url}/extrinsics/${hash}`);
  }
  expect(answer.status).toBe(200);
  const found = answer.body as Found;
  expect(found.blockNumber).toBe(String(built.number));
  expect(found.blockHash).toBe(built.hash);
  expect(found.extrinsic.hash).toBe(hash);
  for (const query of ['', '?noFees=true&eventDocs=true', '?useEvmFormat=true&extrinsicDocs=true']) {
    const withOptions = (await getJson(`${fastcar.url}/extrinsics/${hash}${query}`)).body as Found;
    const shown = (await getJson(`${fastcar.url}/blocks/${built.number}/extrinsics/${found.index}${query}`)).body as { extrinsics: unknown };
    expect(withOptions).toEqual({ blockNumber: String(built.number), blockHash: built.hash, index: found.index, extrinsic: shown.extrinsics });
  }
  // Also under polkadot-rest-api's prefix.
  expect((await getJson(`${fastcar.url}/v1/extrinsics/${hash}`)).body).toEqual(found);
}, 120_000);

it('answers 404 naming the indexed window for a hash outside it, and finds it with ?from&to', async () => {
  const hash = await seededHash(manifest.blocks.transfers, 2);
  const outside = await getJson(`${fastcar.url}/extrinsics/${hash}`);
  expect(outside.status).toBe(404);
  const head = Number(((await getJson(`${fastcar.url}/blocks/head/header`)).body as { number: string }).number);
  expect((outside.body as { message: string }).message).toBe(
    `Extrinsic ${hash} was not found in finalized blocks ${head - WINDOW + 1}-${head} (the newest ${WINDOW} are indexed); search other heights with ?from=&to=.`,
  );
  const searched = await getJson(`${fastcar.url}/extrinsics/${hash}?from=1&to=20`);
  expect(searched.status).toBe(200);
  expect(searched.body).toMatchObject({ blockNumber: String(manifest.blocks.transfers), index: '2', extrinsic: { hash } });
  const elsewhere = await getJson(`${fastcar.url}/extrinsics/${hash}?from=${manifest.blocks.transfers + 1}&to=${manifest.blocks.transfers + 40}`);
  expect(elsewhere.status).toBe(404);
  expect((elsewhere.body as { message: string }).message).toContain(`finalized blocks ${manifest.blocks.transfers + 1}-${manifest.blocks.transfers + 40}`);
  const unknown = await getJson(`${fastcar.url}/extrinsics/0x${'ab'.repeat(32)}`);
  expect(unknown.status).toBe(404);
}, 60_000);

it('stops reading blocks for a from-to search once its client leaves', async () => {
  relay.setDelay(25); // a node a little further away: the search takes seconds
  try {
    relay.reset();
    const leaving = new AbortController();
    const request = fetch(`${fastcar.url}/extrinsics/0x${'cd'.repeat(32)}?from=50&to=180`, { signal: leaving.signal }).catch(() => undefined);
    while (relay.counts.calls < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    leaving.abort();
    await request;
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the reads on their way
    const atLeave = relay.counts.calls;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(relay.counts.calls).toBe(atLeave);
    expect(atLeave).toBeLessThan(131 * 2);
    expect(relay.counts.peakPending).toBeLessThanOrEqual(16); // 8 blocks at a time, 2 calls each at most
  } finally {
    relay.setDelay(0);
  }
}, 60_000);

it.each([
  ['/extrinsics/0x1234'],
  [`/extrinsics/${'ab'.repeat(32)}`],
  [`/extrinsics/0x${'zz'.repeat(32)}`],
  [`/extrinsics/0x${'ab'.repeat(32)}?from=5`],
  [`/extrinsics/0x${'ab'.repeat(32)}?to=5`],
  [`/extrinsics/0x${'ab'.repeat(32)}?from=10&to=5`],
  [`/extrinsics/0x${'ab'.repeat(32)}?from=0&to=500`],
  [`/extrinsics/0x${'ab'.repeat(32)}?from=abc&to=5`],
  [`/extrinsics/0x${'ab'.repeat(32)}?from=200&to=300`],
  [`/extrinsics/0x${'ab'.repeat(32)}?noFees=perhaps`],
])('refuses %s with a JSON 400, reading no block', async (path) => {
  relay.reset();
  const answer = await getJson(`${fastcar.url}${path}`);
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ code: 400, message: expect.any(String) });
  expect(relay.counts.methods).not.toHaveProperty('chain_getBlock');
});

it('fills a second instance window from Redis, without reading those blocks from the node', async () => {
  const secondRelay = await startTap(devnet.wsUrl);
  const second = await startFastcarOn(secondRelay.url, { FASTCAR_EXTRINSIC_INDEX_BLOCKS: String(WINDOW), REDIS_URL: redis.url, FASTCAR_PREBUILD_BLOCKS: '0' });
  try {
    await waitForIndex(second, WINDOW);
    expect(secondRelay.counts.methods).not.toHaveProperty('chain_getBlock');
    const hash = await seededHash(manifest.head.number, 1);
    expect(((await getJson(`${second.url}/extrinsics/${hash}`)).body as Found).blockNumber).toBe(String(manifest.head.number));
  } finally {
    await second.close();
    await secondRelay.close();
  }
}, 120_000);

it('fills it from Redis also when Redis answers only a moment after the instance starts', async () => {
  // Redis frozen (SIGSTOP) while the instance starts: its connection opens but is not ready. Before, the index began
  // on the node at once and read the whole window there. (Thawed well within the second the start waits for it, as
  // the instance runs in this process: a stall here delays both.)
  process.kill(redis.pid, 'SIGSTOP');
  const thaw = setTimeout(() => process.kill(redis.pid, 'SIGCONT'), 300);
  const tap = await startTap(devnet.wsUrl);
  try {
    const third = await startFastcarOn(tap.url, { FASTCAR_EXTRINSIC_INDEX_BLOCKS: String(WINDOW), REDIS_URL: redis.url, FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      await waitForIndex(third, WINDOW);
      expect(tap.counts.methods).not.toHaveProperty('chain_getBlock');
    } finally {
      await third.close();
    }
  } finally {
    clearTimeout(thaw);
    process.kill(redis.pid, 'SIGCONT');
    await tap.close();
  }
}, 120_000);

it('answers 600 hostile lookups and stream openings without a 5xx or a hang, always JSON with a message', async () => {
  let state = 20261124;
  const random = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const hex = (bytes: number) => Array.from({ length: bytes * 2 }, () => pick([...'0123456789abcdef'])).join('');
  const number = () =>
    pick([
      String(Math.floor(random() * 250)),
      String(-Math.floor(random() * 100)),
      '9'.repeat(1 + Math.floor(random() * 30)),
      '1e3',
      '0x10',
      '',
      '%00',
      '1.5',
      'NaN',
    ]);
  const hashes = [
    () => `0x${hex(32)}`,
    () => `0x${hex(Math.floor(random() * 40))}`,
    () => hex(32),
    () => `0x${hex(31)}zz`,
    () => '..%2F..%2Fetc',
    () => encodeURIComponent('ハッシュ'),
    () => '%E0%A4%A',
  ];
  const extrinsicQueries = [
    () => '',
    () => `?from=${number()}&to=${number()}`,
    () => `?from=${number()}`,
    () => `?from=1&from=2&to=3`,
    () => `?to=${number()}&noFees=${pick(['true', 'maybe', ''])}`,
    () => '?__proto__[polluted]=1',
    () => `?useEvmFormat=true&eventDocs=${pick(['true', 'TRUE', '1'])}`,
    () => `?x=${'a'.repeat(Math.floor(random() * 100_000))}`,
  ];
  // Stream openings that must be refused before any stream starts (a hang would time the test out).
  const refusedStreams = [
    () => `/blocks/stream?from=${pick(['-1', 'x', '1.5', '99999999999', '', '0x1'])}`,
    () => `/blocks/stream?noFees=${pick(['maybe', '', 'yes'])}`,
    () => '/blocks/stream?useRcBlock=true',
    () => '/blocks/stream?from=1&from=2',
    () => `/blocks/head/header/stream?from=${pick(['-5', 'abc'])}`,
  ];
  const paths = Array.from({ length: 600 }, () => {
    const prefix = pick(['', '/v1']);
    return random() < 0.2 ? `${prefix}${pick(refusedStreams)()}` : `${prefix}/extrinsics/${pick(hashes)()}${pick(extrinsicQueries)()}`;
  });
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < paths.length) {
        const path = paths[next++];
        const response = await fetch(fastcar.url + path, { signal: AbortSignal.timeout(30_000) });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        let body: { message?: unknown } | undefined;
        try {
          body = JSON.parse(text) as { message?: unknown };
        } catch {
          failures.push(`${path.slice(0, 120)}: not JSON`);
          continue;
        }
        if (response.status >= 500) failures.push(`${path.slice(0, 120)}: ${response.status}`);
        if (response.status >= 400 && typeof body.message !== 'string') failures.push(`${path.slice(0, 120)}: no message`);
        if (/\.ts:\d+|\.js:\d+|node_modules/.test(text)) failures.push(`${path.slice(0, 120)}: leaks a path`);
      }
    }),
  );
  console.log(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  expect(failures.slice(0, 20)).toEqual([]);
  expect(await metric(fastcar, 'fastcar_streams_open')).toBe(0);
  expect((await getJson(`${fastcar.url}/blocks/1/header`)).status).toBe(200);
}, 300_000);
