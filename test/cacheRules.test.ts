// The cache rules on the real devnet, with the finalized height held below the
// chain's head (chopsticks finalizes every block it builds, so a block that is
// not final has to be made by holding the finalized view back).
import { TieredCache } from '../src/cache/tieredCache';
import { NodeClient } from '../src/rpc/nodeClient';
import { newRequestStats, type RequestStats } from '../src/rpc/requestStats';
import type { BlocksService } from '../src/services/blocksService';
import { chainServices, type ChainServices } from '../src/services/chain';
import { FinalizedHead } from '../src/services/finalizedHead';
import type { Devnet } from '../devnet/chain';
import { startDevnet } from './support/devnet';

class HeldBackFinalized extends FinalizedHead {
  constructor(
    node: NodeClient,
    private readonly heldAt: number,
  ) {
    super(node);
  }

  override async current(): Promise<number> {
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
  let manifest;
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
  expect(firstStats).toMatchObject({ rpcCalls: 6, waves: 2 });
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
  expect(stats.methods.chain_getBlockHash).toBe(1);
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
    // The height's hash, its parent's, and the answer: each once.
    expect(times(looked)).toEqual({ [`h:${height}`]: 1, [`h:${height - 1}`]: 1, [`b:${cold.hash}:0000`]: 1 });
    looked.length = 0;
    await services.blocks.block({ kind: 'number', number: height }, query);
    expect(times(looked)).toEqual({ [`h:${height}`]: 1, [`b:${cold.hash}:0000`]: 1 });
  } finally {
    cache.get = lookup;
  }
});
