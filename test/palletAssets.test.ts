// The routes about a chain's assets themselves against sidecar's final line, 20.14.1, on
// the same devnet (its seed creates asset 1 with metadata at block assetCreate, mints it,
// opens a pool of it against the native token at assetPool, whose liquidity token is pool
// asset 0). Sidecar reads these values at its head whatever `at` names: where the head's
// values are the block's, both must give the same answer field for field; before the
// asset or the pool existed, fastcar answers what the block held (docs/differences.md).
import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import { startFastcarOn } from '../harness/fastcar';
import { getJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { sidecarComparison } from './support/sidecarCompare';

let devnet: Devnet;
let manifest: SeedManifest;
let sidecar: Peer;
let fastcar: Fastcar;
const { compare, compareError, both } = sidecarComparison(() => ({ sidecar: sidecar.url, fastcar: fastcar.url }));

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  [sidecar, fastcar] = await Promise.all([startSidecar(devnet.wsUrl, '/runtime/spec', {}, 20), startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' })]);
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close()]);
  await devnet?.close();
});

const hashOf = async (height: number) => ((await getJson(`${fastcar.url}/blocks/${height + 1}/header`)).body as { parentHash: string }).parentHash;
const rpcCost = (answer: { headers: Headers }) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];
const ROUTES = ['/pallets/foreign-assets', '/pallets/asset-conversion/liquidity-pools', '/pallets/asset-conversion/next-available-id'];
const assetRoutes = (id: number | string) => [`/pallets/assets/${id}/asset-info`, `/pallets/pool-assets/${id}/asset-info`];

describe('/pallets/assets, /pallets/pool-assets, /pallets/foreign-assets, /pallets/asset-conversion', () => {
  it('answers as sidecar 20 at the head and at blocks since the last change, by height and by hash', async () => {
    const since = manifest.blocks.feeInAsset + 1;
    const hash = await hashOf(since);
    for (const query of ['', `?at=${since}`, `?at=${hash}`, `?at=${manifest.head.number}`]) {
      for (const path of [...ROUTES, ...assetRoutes(1), ...assetRoutes(0), ...assetRoutes(7)]) await compare(path + query);
    }
    const asset = (await compare('/pallets/assets/1/asset-info')) as { assetInfo: { supply: string }; assetMetaData: { symbol: string; decimals: string } };
    expect(asset.assetMetaData).toMatchObject({ symbol: '0x464344', decimals: '6' });
    expect(BigInt(asset.assetInfo.supply)).toBeGreaterThan(0n);
    const pools = (await compare('/pallets/asset-conversion/liquidity-pools')) as { pools: { lpToken: unknown }[] };
    expect(pools.pools).toHaveLength(1);
    expect(pools.pools[0]?.lpToken).toEqual({ lpToken: '0' });
    expect(((await compare('/pallets/asset-conversion/next-available-id')) as { poolId: string }).poolId).toBe('1');
    expect(((await compare('/pallets/pool-assets/0/asset-info')) as { poolAssetInfo: unknown }).poolAssetInfo).not.toBeNull();
    // An id no asset has: no details, the pallet's default metadata.
    expect(await compare('/pallets/assets/7/asset-info')).toMatchObject({
      assetInfo: null,
      assetMetaData: { deposit: '0', name: '0x', symbol: '0x', decimals: '0', isFrozen: false },
    });
    // The same answers under /v1 (at one seeded height: beside a real node the head moves meanwhile).
    const pinned = `/pallets/assets/1/asset-info?at=${manifest.head.number}`;
    expect((await getJson(`${fastcar.url}/v1${pinned}`)).body).toEqual((await getJson(`${fastcar.url}${pinned}`)).body);
  });

  it('answers what the block held before the asset and the pool existed, where sidecar gives its head', async () => {
    const before = manifest.blocks.assetCreate - 1;
    const { theirs, ours } = await both(`/pallets/assets/1/asset-info?at=${before}`);
    expect(theirs.status).toBe(200);
    expect((theirs.body as { assetInfo: unknown }).assetInfo).not.toBeNull();
    expect(ours.body).toMatchObject({ at: { height: String(before) }, assetInfo: null, assetMetaData: { symbol: '0x', decimals: '0' } });
    const beforePool = manifest.blocks.assetPool - 1;
    const pools = await both(`/pallets/asset-conversion/liquidity-pools?at=${beforePool}`);
    expect((pools.theirs.body as { pools: unknown[] }).pools).toHaveLength(1);
    expect(pools.ours.body).toMatchObject({ at: { height: String(beforePool) }, pools: [] });
    expect((await getJson(`${fastcar.url}/pallets/asset-conversion/next-available-id?at=${beforePool}`)).body).toMatchObject({ poolId: '0' });
    expect((await getJson(`${fastcar.url}/pallets/pool-assets/0/asset-info?at=${beforePool}`)).body).toMatchObject({ poolAssetInfo: null });
  });

  it("refuses bad ids and blocks with sidecar's status and message where sidecar is right, a 400 where it answers 500", async () => {
    for (const path of assetRoutes('x').concat(assetRoutes(-1), assetRoutes('1.5'))) {
      expect(await compareError(path, 400)).toBe('`assetId` path param is not a number');
    }
    for (const path of assetRoutes(4294967296)) {
      const { theirs, ours } = await both(path);
      expect([theirs.status, ours.status]).toEqual([500, 400]);
      expect((ours.body as { message: string }).message).toMatch(/^Asset id 4294967296 is not an asset id of this chain/);
    }
    for (const path of [...ROUTES, ...assetRoutes(1)]) {
      const far = await both(`${path}?at=999999`);
      expect([far.theirs.status, far.ours.status]).toEqual([500, 400]);
      expect(far.ours.body).not.toHaveProperty('stack');
      await compareError(`${path}?at=abc`, 400, false);
      // useRcBlock needs a relay chain node, which this fastcar was not given.
      await compareError(`${path}?useRcBlock=true`, 400, false);
      expect((await getJson(`${fastcar.url}${path}?at=0x${'ab'.repeat(32)}`)).status).toBe(404);
    }
  });

  it('reads one asset in one wave once `at` is resolved, a listed map in two', async () => {
    const height = manifest.head.number - 3;
    // The first read at a block learns its runtime version (kept by hash from then on).
    await getJson(`${fastcar.url}/pallets/assets/1/asset-info?at=${height}`);
    expect(rpcCost(await getJson(`${fastcar.url}/pallets/assets/1/asset-info?at=${height}`))).toEqual([1, 1]);
    expect(rpcCost(await getJson(`${fastcar.url}/pallets/pool-assets/0/asset-info?at=${height}`))).toEqual([1, 1]);
    expect(rpcCost(await getJson(`${fastcar.url}/pallets/asset-conversion/next-available-id?at=${height}`))).toEqual([1, 1]);
    // The pools listed (one page), then their values.
    expect(rpcCost(await getJson(`${fastcar.url}/pallets/asset-conversion/liquidity-pools?at=${height}`))).toEqual([2, 2]);
  });

  it('lets clients keep an answer at a finalized block, per asset, never one at the head', async () => {
    const etags = await Promise.all(
      ['/pallets/assets/1/asset-info?at=9', '/pallets/assets/7/asset-info?at=9', '/pallets/pool-assets/1/asset-info?at=9'].map(
        async (path) => (await getJson(fastcar.url + path)).headers.get('etag') ?? '',
      ),
    );
    for (const etag of etags) expect(etag).toMatch(/^"0x[0-9a-f]{64}-/);
    expect(new Set(etags).size).toBe(3);
    expect((await getJson(`${fastcar.url}/pallets/assets/1/asset-info`)).headers.get('etag')).toBeNull();
  });
});

describe("sidecar's routes fastcar does not serve", () => {
  it('answer 501 saying why, not 404, under every prefix', async () => {
    for (const prefix of ['', '/v1']) {
      for (const path of ['/experimental/blocks/head/traces', '/experimental/blocks/5/traces/operations']) {
        const answer = await getJson(`${fastcar.url}${prefix}${path}`);
        expect([answer.status, (answer.body as { code: number }).code]).toEqual([501, 501]);
        expect((answer.body as { message: string }).message).toMatch(/^Block traces are not served: .*state_traceBlock/);
        expect(rpcCost(answer)).toEqual([0, 0]);
      }
      const ink = await fetch(`${fastcar.url}${prefix}/contracts/ink/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: '{}' }),
      });
      expect(ink.status).toBe(501);
      expect(((await ink.json()) as { message: string }).message).toMatch(/^ink! contract queries are not served/);
    }
  });
});
