// fastcar on the devnet: how many RPC calls and waves each request costs,
// what is cached and how it is announced, Redis shared between instances,
// and bad input.
import { get, type IncomingHttpHeaders } from 'node:http';

import Redis from 'ioredis';

import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { getJson } from '../harness/http';
import { startRedis, type Peer } from '../harness/processes';
import { startFastcarOn } from '../harness/fastcar';
import { HASH_WINDOW } from '../src/services/shared/at/hashWindows';

let devnet: Devnet;
let manifest: SeedManifest;
let fastcar: Fastcar;

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  fastcar = await startFastcarOn(devnet.wsUrl);
  // Load the runtime once, so the counts below are those of an ordinary request.
  await getJson(`${fastcar.url}/blocks/1`);
}, 180_000);

afterAll(async () => {
  await fastcar?.close();
  await devnet?.close();
});

function cost(headers: Headers) {
  return { calls: Number(headers.get('x-rpc-calls')), waves: Number(headers.get('x-rpc-waves')), cache: headers.get('x-cache') };
}

describe('RPC plan', () => {
  it('a number id costs two waves: the hashes of n and n-1 (one call: their window of heights), then block, events, validators and the runtime version at the parent together', async () => {
    // Heights inside the third window: the devnet's history, far from the head the prebuilder builds.
    const windowStart = 2 * HASH_WINDOW;
    const { status, headers } = await getJson(`${fastcar.url}/blocks/${windowStart + HASH_WINDOW / 2}`);
    expect(status).toBe(200);
    expect(cost(headers)).toEqual({ calls: 5, waves: 2, cache: 'miss' });
    // Any other height of that window costs one wave: both hashes are known now.
    const inWindow = await getJson(`${fastcar.url}/blocks/${windowStart + HASH_WINDOW / 2 + 1}`);
    expect(cost(inWindow.headers)).toEqual({ calls: 4, waves: 1, cache: 'miss' });
    // The window's first height: its parent is in the window before, one more call in the same wave.
    const opening = await getJson(`${fastcar.url}/blocks/${windowStart}`);
    expect(cost(opening.headers)).toEqual({ calls: 5, waves: 2, cache: 'miss' });
  });

  it('a hash id costs two waves: the block with its events, then the runtime version at its parent (the canonical hash of its height from its window)', async () => {
    await getJson(`${fastcar.url}/blocks/${manifest.blocks.batches + 1}`);
    const hash = await devnet.chain.getBlockAt(manifest.blocks.batches).then((block) => block!.hash);
    const { headers } = await getJson(`${fastcar.url}/blocks/${hash}`);
    expect(cost(headers)).toEqual({ calls: 4, waves: 2, cache: 'miss' });
  });

  it('fees the runtime did not report in an event are queried in one extra wave, one call each', async () => {
    const { headers, body } = await getJson(`${fastcar.url}/blocks/${manifest.blocks.feeInAsset}`);
    const queried = (body as { extrinsics: { info: { kind?: string } }[] }).extrinsics.filter((x) => x.info.kind === 'preDispatch');
    expect(queried).toHaveLength(1);
    // The hashes of the height and its parent are in the window the test above brought.
    expect(cost(headers)).toEqual({ calls: 5, waves: 2, cache: 'miss' });
  });

  it('noFees skips the fee wave', async () => {
    const { headers } = await getJson(`${fastcar.url}/blocks/${manifest.blocks.feeInAsset}?noFees=true`);
    expect(cost(headers).waves).toBe(1); // the hash of the height is cached now
  });

  it('a finalized block asked again costs no RPC at all', async () => {
    const path = `${fastcar.url}/blocks/${manifest.blocks.transfers}`;
    const first = await getJson(path);
    const again = await getJson(path);
    expect(cost(again.headers)).toEqual({ calls: 0, waves: 0, cache: 'hit' });
    expect(again.text).toBe(first.text);
  });

  it('a range streams its blocks in order, each as its own answer', async () => {
    const { status, body } = await getJson(`${fastcar.url}/blocks?range=150-170`);
    expect(status).toBe(200);
    const blocks = body as { number: string }[];
    expect(blocks.map((block) => Number(block.number))).toEqual(Array.from({ length: 21 }, (_, i) => 150 + i));
    for (const n of [150, 163, 170]) expect(blocks[n - 150]).toEqual((await getJson(`${fastcar.url}/blocks/${n}`)).body);
  });

  it("a range's node calls: those before its first block in the headers, the whole answer's in trailers", async () => {
    const { headers, trailers, blocks } = await new Promise<{ headers: IncomingHttpHeaders; trailers: NodeJS.Dict<string>; blocks: unknown[] }>(
      (resolve, reject) => {
        get(`${fastcar.url}/blocks?range=20-59&eventDocs=true&extrinsicDocs=true`, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ headers: res.headers, trailers: res.trailers, blocks: JSON.parse(text) as unknown[] }));
          res.on('error', reject);
        }).on('error', reject);
      },
    );
    expect(blocks).toHaveLength(40);
    expect(headers.trailer).toBe('X-Rpc-Calls, X-Rpc-Waves');
    const [early, whole] = [Number(headers['x-rpc-calls']), Number(trailers['x-rpc-calls'])];
    // Forty blocks not read before in this form: most of their calls come after the first is sent.
    expect(whole).toBeGreaterThan(early);
    expect(Number(trailers['x-rpc-waves'])).toBeGreaterThanOrEqual(Number(headers['x-rpc-waves']));
  });
});

describe('HTTP caching', () => {
  it('answers a finalized block again from its wire bytes: same body, headers, 304 and compressed forms', async () => {
    const path = `${fastcar.url}/blocks/${manifest.blocks.multisigApprove}?eventDocs=true`;
    const first = await getJson(path);
    const kept = async () => Number(/^fastcar_hot_answers (\d+)$/m.exec(await (await fetch(`${fastcar.metricsUrl}/metrics`)).text())?.[1]);
    const before = await kept();
    expect(before).toBeGreaterThan(0);
    const again = await getJson(path);
    expect(again.text).toBe(first.text);
    expect(cost(again.headers)).toEqual({ calls: 0, waves: 0, cache: 'hit' });
    for (const name of ['etag', 'cache-control', 'content-type', 'vary']) expect([name, again.headers.get(name)]).toEqual([name, first.headers.get(name)]);
    expect(await kept()).toBe(before);
    const notModified = await fetch(path, { headers: { 'If-None-Match': first.headers.get('etag')! } });
    expect(notModified.status).toBe(304);
    for (const encoding of ['br', 'gzip']) {
      const compressed = await fetch(path, { headers: { 'Accept-Encoding': encoding } });
      expect(compressed.headers.get('content-encoding')).toBe(encoding);
      expect(await compressed.text()).toBe(first.text); // fetch decodes it
    }
    // A URL with a parameter the route ignores is not kept under that URL.
    const odd = await getJson(`${path}&unused=1`);
    expect(odd.text).toBe(first.text);
    expect(await kept()).toBe(before);
  });

  it('keeps one warm answer per block and options, whatever spelling asked for it', async () => {
    const kept = async () => Number(/^fastcar_hot_answers (\d+)$/m.exec(await (await fetch(`${fastcar.metricsUrl}/metrics`)).text())?.[1]);
    const n = manifest.blocks.batches;
    expect(n).toBeGreaterThan(1);
    const before = await kept();
    // Every spelling sidecar's parsing takes for this height (asked twice, the second time warm)...
    const spellings = [
      `0${n}`,
      `${n}.0`,
      `0b${n.toString(2)}`,
      `0o${n.toString(8)}`,
      `+${n}`,
      `${n}e0`,
      `/v1/blocks/${n}`,
      `${n}?noFees=false`,
      `${n}?finalizedKey=TRUE`,
    ];
    const answers = [];
    for (const spelling of [...spellings, ...spellings]) {
      answers.push(await getJson(`${fastcar.url}${spelling.startsWith('/') ? spelling : `/blocks/${spelling}`}`));
    }
    const canonical = await getJson(`${fastcar.url}/blocks/${n}`);
    for (const answer of answers) expect([answer.status, answer.text]).toEqual([200, canonical.text]);
    // ... is one entry, under the canonical spelling, whose next ask is answered from it.
    expect(await kept()).toBe(before + 1);
    expect(cost((await getJson(`${fastcar.url}/v1/blocks/${n}`)).headers)).toEqual({ calls: 0, waves: 0, cache: 'hit' });
    const withOptions = await kept();
    await getJson(`${fastcar.url}/blocks/${n}?noFee=TRUE&eventDocs=false`);
    await getJson(`${fastcar.url}/blocks/${n}?noFees=true`);
    expect(await kept()).toBe(withOptions + 1);
  });

  it('announces finalized blocks as immutable with an ETag and answers If-None-Match with 304', async () => {
    const path = `${fastcar.url}/blocks/${manifest.blocks.proxyCall}`;
    const first = await getJson(path);
    expect(first.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const second = await fetch(path, { headers: { 'If-None-Match': etag! } });
    expect(second.status).toBe(304);
    const other = await getJson(`${path}?noFees=true`);
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('compresses large answers for clients that accept it', async () => {
    const path = `${fastcar.url}/blocks/${manifest.blocks.big}?noFees=true`;
    const plain = await getJson(path, { 'Accept-Encoding': 'identity' });
    for (const encoding of ['br', 'gzip']) {
      const response = await fetch(path, { headers: { 'Accept-Encoding': encoding } });
      expect(response.headers.get('content-encoding')).toBe(encoding);
      expect(await response.text()).toBe(plain.text);
    }
  });

  it('never lets the moving head be cached', async () => {
    const { headers } = await getJson(`${fastcar.url}/blocks/head`);
    expect(headers.get('cache-control')).toBe('no-store');
  });
});

describe('Redis shared by two instances', () => {
  let redis: Peer;
  let first: Fastcar;
  let second: Fastcar;

  beforeAll(async () => {
    redis = await startRedis();
    [first, second] = await Promise.all([startFastcarOn(devnet.wsUrl, { REDIS_URL: redis.url }), startFastcarOn(devnet.wsUrl, { REDIS_URL: redis.url })]);
    await getJson(`${second.url}/blocks/1`); // runtime loaded
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await redis?.stop();
  });

  it('lets the second instance answer from what the first one fetched', async () => {
    const n = manifest.blocks.multisigExecute;
    const built = await getJson(`${first.url}/blocks/${n}`);
    expect(cost(built.headers).calls).toBeGreaterThan(0);
    // The request does not await its Redis write: the answer is there once a key names its hash
    // (its build's lease, `...:lease:b:<hash>:...`, is taken before the answer is written).
    const { hash } = built.body as { hash: string };
    const raw = new Redis(redis.url);
    const answerKept = async () => (await raw.keys(`*:b:${hash}:*`)).some((key) => !key.includes(':lease:'));
    try {
      const deadline = Date.now() + 10_000;
      while (!(await answerKept()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      raw.disconnect();
    }
    const shared = await getJson(`${second.url}/blocks/${n}`);
    expect(cost(shared.headers)).toEqual({ calls: 0, waves: 0, cache: 'hit' });
    expect(shared.text).toBe(built.text);
  });

  it('keeps answering from the node when Redis goes away', async () => {
    await redis.stop();
    const { status, body } = await getJson(`${second.url}/blocks/${manifest.blocks.multisigApprove}`);
    expect(status).toBe(200);
    expect((body as { number: string }).number).toBe(String(manifest.blocks.multisigApprove));
  });
});

describe('per-client rate limit behind one trusted balancer', () => {
  let limited: Fastcar;

  beforeAll(async () => {
    limited = await startFastcarOn(devnet.wsUrl, { FASTCAR_RATE_LIMIT_PER_IP: '2', FASTCAR_TRUSTED_PROXIES: '1' });
  }, 60_000);

  afterAll(async () => {
    await limited?.close();
  });

  const from = (client: string, path = `/blocks/${manifest.blocks.transfers}/header`) =>
    // The leftmost entry is the client's own claim; the balancer appended the last one.
    getJson(`${limited.url}${path}`, { 'X-Forwarded-For': `10.9.9.9, ${client}` });

  it('answers a client past its budget with a JSON 429 and Retry-After, and others as usual', async () => {
    // The header cached first, so that every request of 192.0.2.1 below falls in its one-second window on a busy machine.
    expect((await from('192.0.2.9')).status).toBe(200);
    const greedy = await Promise.all(Array.from({ length: 10 }, () => from('192.0.2.1')));
    // No path is exempt, so no query string rides an exemption: /health is limited as the rest.
    const others = await Promise.all(['/health', '/health?x', '/metrics?x'].map((path) => from('192.0.2.1', path)));
    expect(others.map((answer) => answer.status)).toEqual([429, 429, 429]);
    const statuses = greedy.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    const refused = greedy.find((answer) => answer.status === 429)!;
    expect(refused.body).toEqual({ code: 429, message: expect.any(String) });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('cache-control')).toBe('no-store');

    expect((await from('192.0.2.2')).status).toBe(200);
    expect((await from('192.0.2.3', '/health')).status).toBe(200);
    // Metrics are not on the public port at all.
    expect((await from('192.0.2.4', '/metrics')).status).toBe(404);
  });

  it('lets the client in again once its bucket refills', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await from('192.0.2.1')).status).toBe(200);
  });
});

describe('bad input', () => {
  const cases: [string, number][] = [
    ['/blocks/-1', 400],
    ['/blocks/12abc', 400],
    ['/blocks/0x12', 400],
    [`/blocks/0x${'g'.repeat(64)}`, 400],
    ['/blocks/99999999', 400],
    ['/blocks/99999999999999999999', 400],
    ['/blocks?range=1-1000000000', 400],
    ['/blocks?range=abc', 400],
    ['/blocks', 400],
    ['/blocks/1?noFees=maybe', 400],
    ['/blocks/1?noFees=true&noFees=false', 400],
    ['/blocks/1/extrinsics/-1', 400],
    ['/blocks/1/extrinsics/5000', 400],
    ['/blocks/%E0%A4%A', 400],
    ['/blocks/..%2F..%2Fetc%2Fpasswd', 400],
    ['/nothing/here', 404],
  ];

  it.each(cases)('%s gets %d with a JSON message and no stack', async (path, status) => {
    const response = await getJson(fastcar.url + path);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ code: status, message: expect.any(String) });
    expect(response.text).not.toMatch(/at .+\.(ts|js):\d+/);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('ignores parameters a route does not use, as sidecar does, and says so', async () => {
    const plain = await getJson(`${fastcar.url}/blocks/${manifest.blocks.transfers}`);
    const extra = await getJson(`${fastcar.url}/blocks/${manifest.blocks.transfers}?finalized=true&nofees=true`);
    expect(extra.status).toBe(200);
    expect(extra.text).toBe(plain.text);
    expect(extra.headers.get('x-ignored-params')).toBe('finalized, nofees');
    expect(plain.headers.get('x-ignored-params')).toBeNull();
    const metrics = await (await fetch(`${fastcar.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^fastcar_ignored_query_params_total [1-9]\d*$/m);
    // A malformed value of a parameter the route uses is still refused.
    expect((await getJson(`${fastcar.url}/blocks/1?noFees=maybe&finalized=true`)).status).toBe(400);
  });

  it('refuses parameters a route does not use in strict mode', async () => {
    const strict = await startFastcarOn(devnet.wsUrl, { FASTCAR_STRICT_PARAMS: 'true', FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      const answer = await getJson(`${strict.url}/blocks/${manifest.blocks.transfers}?finalized=true`);
      expect(answer.status).toBe(400);
      expect((answer.body as { message: string }).message).toContain('Unknown query parameter: finalized.');
    } finally {
      await strict.close();
    }
  });

  it('answers an oversized URL with JSON too', async () => {
    const response = await getJson(`${fastcar.url}/blocks/1?x=${'a'.repeat(1_000_000)}`);
    expect(response.status).toBe(431);
    expect(response.body).toEqual({ code: 431, message: expect.any(String) });
  });

  it('says where the head is when a block is beyond it', async () => {
    const { body } = await getJson(`${fastcar.url}/blocks/${manifest.head.number + 1}`);
    expect((body as { message: string }).message).toBe(
      `Specified block number is larger than the current largest block. The largest known block number is ${manifest.head.number}.`,
    );
  });
});

describe('newly finalized blocks', () => {
  it('are built before anyone asks, so the first request for one costs no RPC', async () => {
    const entries = async () => ((await getJson(`${fastcar.url}/health`)).body as { cache: { entries: number } }).cache.entries;
    const before = await entries();
    const block = await devnet.chain.newBlock();
    // Wait for the answer to land in the cache without asking for the block itself.
    const deadline = Date.now() + 20_000;
    while ((await entries()) < before + 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const { status, headers } = await getJson(`${fastcar.url}/blocks/${block.number}`);
    expect(status).toBe(200);
    expect(cost(headers)).toEqual({ calls: 0, waves: 0, cache: 'hit' });
  });
});

// Last: chopsticks answers an unknown hash with its genesis block and from then on
// reports that hash as block 0's, so this must not run before anything else.
describe('a block hash the node does not have', () => {
  it('gets 404, is not cached, and is not announced as final', async () => {
    const response = await getJson(`${fastcar.url}/blocks/0x${'11'.repeat(32)}`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 404, message: `No block with hash 0x${'11'.repeat(32)} is known to the node.` });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});
