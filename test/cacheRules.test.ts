// The cache rules on the real devnet, with the finalized height held below the
// chain's head (chopsticks finalizes every block it builds, so a block that is
// not final has to be made by holding the finalized view back).
import type { SeedManifest } from '../devnet/seed';
import { TieredCache } from '../src/cache/tieredCache';
import { NodeClient } from '../src/rpc/nodeClient';
import { newRequestStats, type RequestStats } from '../src/rpc/requestStats';
import type { BlocksService } from '../src/services/blocks/blocksService';
import { chainServices, type ChainServices } from '../src/services/chain';
import { FinalizedHead } from '../src/services/finalizedHead';
import type { Devnet } from '../devnet/chain';
import { startDevnet } from './support/devnet';
import { startTap } from '../harness/rpcTap';

class HeldBackFinalized extends FinalizedHead {
  constructor(
    node: NodeClient,
    /** Where the finalized height is held; a test may move it. */
    public heldAt: number,
  ) {
    super(node);
  }

  override async current(): Promise<number> {
    return this.heldAt;
  }

  // As a subscription would: known without a call, so finalized heights come with their window.
  override get known(): boolean {
    return true;
  }

  override get height(): number {
    return this.heldAt;
  }
}

const FINALIZED = 8;
const query = { eventDocs: false, extrinsicDocs: false, noFees: false, decodedXcmMsgs: false };
let devnet: Devnet;
let feeInAsset: number;
let node: NodeClient;
let cache: TieredCache;
let services: ChainServices;

/** What `fn` answers with one request's services, and the node calls it cost. */
async function counted<T>(fn: (blocks: BlocksService) => Promise<T>): Promise<[T, RequestStats]> {
  const stats = newRequestStats();
  const value = await fn(services.forRequest(stats).blocks);
  return [value, stats];
}

beforeAll(async () => {
  let manifest: SeedManifest;
  ({ devnet, manifest } = await startDevnet());
  feeInAsset = manifest.blocks.feeInAsset;
  node = new NodeClient({ url: devnet.wsUrl, timeoutMs: 30_000 });
  await node.ready();
  cache = new TieredCache(64 * 1024 * 1024);
  services = chainServices(node, new HeldBackFinalized(node, FINALIZED), cache, (await node.getBlockHash(0))!);
  await services.blocks.block({ kind: 'number', number: 1 }, query); // runtime loaded
}, 120_000);

afterAll(async () => {
  await node?.disconnect();
  await devnet?.close();
});

it('caches a finalized block and its height: the second ask costs nothing', async () => {
  const [first, firstStats] = await counted((blocks) => blocks.block({ kind: 'number', number: FINALIZED }, query));
  expect(first).toMatchObject({ finalized: true, immutable: true, fromCache: false });
  // The hashes of n and n-1 came with the window of heights block 1 brought: one wave.
  expect(firstStats).toMatchObject({ rpcCalls: 4, waves: 1 });
  expect(firstStats.methods.chain_getBlockHash).toBeUndefined();
  const [again, againStats] = await counted((blocks) => blocks.block({ kind: 'number', number: FINALIZED }, query));
  expect(again).toMatchObject({ finalized: true, fromCache: true, json: first.json });
  expect(againStats).toMatchObject({ rpcCalls: 0, waves: 0 });
});

it('never caches a block above the finalized height, nor its height -> hash', async () => {
  const above = FINALIZED + 1;
  const [first] = await counted((blocks) => blocks.block({ kind: 'number', number: above }, query));
  expect(first).toMatchObject({ finalized: false, immutable: false });
  const [again, stats] = await counted((blocks) => blocks.block({ kind: 'number', number: above }, query));
  expect(again).toMatchObject({ finalized: false, fromCache: false });
  expect(stats).toMatchObject({ rpcCalls: 5, waves: 2 });
  expect(await cache.get(`h:${above}`)).toBeUndefined();
});

it('checks a hash id against the canonical hash of its height before calling it final', async () => {
  const hash = (await node.getBlockHash(3))!;
  const [answer, stats] = await counted((blocks) => blocks.block({ kind: 'hash', hash }, query));
  expect(answer).toMatchObject({ finalized: true, immutable: true });
  // The canonical hash of its height: from its window, or asked (once).
  expect(stats.methods.chain_getBlockHash ?? 0).toBeLessThanOrEqual(1);
});

describe('windows of height hashes', () => {
  /** Services of their own (no window known yet) over `over`, and a request's counts. */
  const fresh = async (over = node) => chainServices(over, new HeldBackFinalized(over, FINALIZED), new TieredCache(1024 * 1024), (await over.getBlockHash(0))!);
  const idsFor = (chain: ChainServices) => {
    const stats = newRequestStats();
    return { ids: chain.forRequest(stats).ids, stats };
  };

  it('brings a finalized height with its window in one call, never past the finalized height', async () => {
    const chain = await fresh();
    const asked = [3, 5, FINALIZED];
    const calls: number[] = [];
    for (const number of asked) {
      const { ids, stats } = idsFor(chain);
      expect(await ids.hashOf(number)).toBe(await node.getBlockHash(number));
      calls.push(stats.methods.chain_getBlockHash ?? 0);
    }
    expect(calls).toEqual([1, 0, 0]);
    // Above the finalized height: asked alone, every time.
    for (let i = 0; i < 2; i++) {
      const { ids, stats } = idsFor(chain);
      expect(await ids.hashOf(FINALIZED + 1)).toBe(await node.getBlockHash(FINALIZED + 1));
      expect(stats.methods.chain_getBlockHash).toBe(1);
    }
  });

  it("counts the wait of a request on another one's window as a round of its own, with no call", async () => {
    const chain = await fresh();
    const first = idsFor(chain);
    const second = idsFor(chain);
    const [a, b] = await Promise.all([first.ids.hashOf(3), second.ids.hashOf(4)]);
    expect([a, b]).toEqual([await node.getBlockHash(3), await node.getBlockHash(4)]);
    expect([first.stats.rpcCalls, first.stats.waves]).toEqual([1, 1]);
    expect([second.stats.rpcCalls, second.stats.waves]).toEqual([0, 1]);
  });

  it('grows a window near the finalized head by the heights it lacks only', async () => {
    const lists: number[][] = [];
    const relay = await startTap(devnet.wsUrl, 0, 0, (call) => {
      if (call.method === 'chain_getBlockHash' && Array.isArray(call.params?.[0])) lists.push(call.params[0] as number[]);
      return undefined;
    });
    const through = new NodeClient({ url: relay.url, timeoutMs: 30_000 });
    try {
      await through.ready();
      // A finalized head that moves a height at a time, as a live chain's does.
      const head = new HeldBackFinalized(through, 3);
      const chain = chainServices(through, head, new TieredCache(1024 * 1024), (await through.getBlockHash(0))!);
      for (const height of [3, 4, 5]) {
        head.heldAt = height;
        const { ids } = idsFor(chain);
        expect(await ids.hashOf(height)).toBe(await node.getBlockHash(height));
      }
      expect(lists).toEqual([[0, 1, 2, 3], [4], [5]]);
    } finally {
      await through.disconnect();
      await relay.close();
    }
  });

  it('falls back to one height per call on a node that answers a list with anything else, and keeps nothing of that answer', async () => {
    const relay = await startTap(devnet.wsUrl, 0, 0, (call) =>
      call.method === 'chain_getBlockHash' && Array.isArray(call.params?.[0]) ? { result: ['0x12'] } : undefined,
    );
    const through = new NodeClient({ url: relay.url, timeoutMs: 30_000 });
    try {
      await through.ready();
      const chain = await fresh(through);
      const first = idsFor(chain);
      expect(await first.ids.hashOf(3)).toBe(await node.getBlockHash(3));
      expect(first.stats.methods.chain_getBlockHash).toBe(2); // the list, refused, then the height alone
      const second = idsFor(chain);
      expect(await second.ids.hashOf(4)).toBe(await node.getBlockHash(4));
      expect(second.stats.methods.chain_getBlockHash).toBe(1); // the refusal is remembered
    } finally {
      await through.disconnect();
      await relay.close();
    }
  });
});

it('asks each fee the events did not report once, all in one wave', async () => {
  const [answer, stats] = await counted((blocks) => blocks.block({ kind: 'number', number: feeInAsset }, { ...query, noFees: false }));
  const kinds = (JSON.parse(answer.json) as { extrinsics: { info: { kind?: string } }[] }).extrinsics.map((x) => x.info.kind);
  expect(kinds.filter((kind) => kind === 'preDispatch')).toHaveLength(stats.methods.state_call);
  expect(stats.waves).toBe(3);
});

it('looks each cache key up once for a cold height (with Redis, each lookup is a round trip)', async () => {
  const looked: string[] = [];
  const lookup = cache.get.bind(cache);
  cache.get = (key: string) => {
    looked.push(key);
    return lookup(key);
  };
  try {
    const height = FINALIZED - 2;
    const [cold] = await counted((blocks) => blocks.block({ kind: 'number', number: height }, query));
    expect(cold).toMatchObject({ fromCache: false, immutable: true });
    const times = (keys: string[]) => Object.fromEntries(keys.map((key) => [key, keys.filter((other) => other === key).length]));
    // The answer once; the height's hash and its parent's at most once (none when a window holds them).
    expect(times(looked)).toMatchObject({ [`b:${cold.hash}:0000`]: 1 });
    expect(Object.values(times(looked)).every((n) => n === 1)).toBe(true);
    looked.length = 0;
    await services.blocks.block({ kind: 'number', number: height }, query);
    expect(times(looked)).toMatchObject({ [`b:${cold.hash}:0000`]: 1 });
    expect(Object.values(times(looked)).every((n) => n === 1)).toBe(true);
  } finally {
    cache.get = lookup;
  }
});
