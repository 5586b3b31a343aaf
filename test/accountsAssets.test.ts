// The asset routes of /accounts against sidecar's final line, 20.14.1, on the same devnet
// (its seed creates asset 1, mints it to Alice and Bob, sends some to Charlie and Dave,
// opens a pool with it, whose liquidity token is pool asset 0, and pays a fee in it):
// every answer sidecar gives correctly must be the same, field for field, for every
// asset, a chosen list, an asset nobody holds, approvals, pool and foreign assets, at the
// head, a height and a hash; every 400 the same status (and message where it is
// sidecar's own). The node calls and waves are asserted, and the listing's bound.
import { Keyring } from '@polkadot/keyring';
import { u8aToHex } from '@polkadot/util';
import { cryptoWaitReady, xxhashAsHex } from '@polkadot/util-crypto';

import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import { getJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';
import { startSidecar, type Peer } from '../harness/processes';
import { RELAY_BLOCK, startRelayBeside, type RelayBeside } from '../harness/relayChain';
import type { Fastcar } from '../src/server';
import { NodeClient } from '../src/rpc/nodeClient';
import { listKeys } from '../src/services/shared/storage/storageBatch';
import { startDevnet } from './support/devnet';
import { askBoth } from './support/sidecarCompare';
import { startRefusingNode, type RefusingNode } from './support/refusingNode';

let devnet: Devnet;
let manifest: SeedManifest;
let sidecar: Peer;
let fastcar: Fastcar;
const accounts: Record<string, string> = {};

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  [sidecar, fastcar] = await Promise.all([startSidecar(devnet.wsUrl, '/runtime/spec', {}, 20), startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' })]);
  await cryptoWaitReady();
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  for (const name of ['Alice', 'Bob', 'Charlie', 'Dave', 'Eve']) accounts[name] = keyring.addFromUri(`//${name}`).address;
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close()]);
  await devnet?.close();
});

async function both(path: string) {
  const { theirs, ours } = await askBoth(sidecar.url, fastcar.url, path);
  return { theirs, ours };
}

async function compare(path: string): Promise<unknown> {
  const { theirs, ours } = await both(path);
  expect({ path, status: ours.status, body: ours.body }).toEqual({ path, status: theirs.status, body: theirs.body });
  return ours.body;
}

/** Both refuse with `status`; the message is sidecar's where `sameMessage`; fastcar never sends a stack. */
async function compareError(path: string, status: number, sameMessage = true): Promise<string> {
  const { theirs, ours } = await both(path);
  expect({ path, theirs: theirs.status, ours: ours.status }).toEqual({ path, theirs: status, ours: status });
  const body = ours.body as { code: number; message: string; stack?: string };
  expect(body.code).toBe(status);
  expect(body.stack).toBeUndefined();
  if (sameMessage) expect({ path, message: body.message }).toEqual({ path, message: (theirs.body as { message: string }).message });
  return body.message;
}

const hashOf = async (height: number) => ((await getJson(`${fastcar.url}/blocks/${height + 1}/header`)).body as { parentHash: string }).parentHash;
const route = (address: string, name: string, query = '') => `/accounts/${address}/${name}${query}`;
const rpcCost = (answer: { headers: Headers }) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];

describe('/accounts/{accountId}/asset-balances and /pool-asset-balances', () => {
  it('answers as sidecar 20 for every asset of the chain, for every seeded account, at the head and before', async () => {
    const heights = ['', `?at=${manifest.blocks.failures}`, `?at=${manifest.blocks.assetMintTransfer}`, `?at=${manifest.blocks.feeInAsset}`];
    for (const address of Object.values(accounts)) {
      for (const query of heights) {
        await compare(route(address, 'asset-balances', query));
        await compare(route(address, 'pool-asset-balances', query));
      }
    }
    // Alice holds asset 1 (the chain also has an asset from genesis she does not hold); Eve holds none.
    const alice = (await compare(route(accounts.Alice, 'asset-balances'))) as { assets: { assetId: string; balance: string }[] };
    expect(alice.assets.find((asset) => asset.assetId === '1')?.balance).toBe('899998000000000');
    expect(alice.assets.length).toBeGreaterThan(1);
    const pool = (await compare(route(accounts.Alice, 'pool-asset-balances'))) as { poolAssets: { balance: string }[] };
    expect(BigInt(pool.poolAssets[0]?.balance ?? '0')).toBeGreaterThan(0n);
  });

  it('answers as sidecar 20 for a chosen list, an asset nobody holds, by height and by hash', async () => {
    const hash = await hashOf(manifest.blocks.assetLiquidity);
    const queries = ['?assets[]=1', '?assets[]=1&assets[]=7', '?assets[]=7', '?assets=1&assets=0x10', '?assets[]=0&assets[]=1e0', `?assets[]=1&at=${hash}`];
    queries.push(`?assets[]=1&at=${manifest.blocks.assetCreate}`, `?at=${hash}`, '?assets[]=%201%20');
    for (const address of [accounts.Alice, accounts.Charlie, accounts.Eve]) {
      for (const query of queries) {
        await compare(route(address, 'asset-balances', query));
        await compare(route(address, 'pool-asset-balances', query));
      }
    }
    const unheld = (await compare(route(accounts.Eve, 'asset-balances', '?assets[]=7'))) as { assets: unknown[] };
    expect(unheld.assets).toEqual([{ assetId: '7', balance: '0', isFrozen: false, isSufficient: false }]);
  });

  it("refuses bad asset ids, addresses and `at` with sidecar's status, and its message where it is sidecar's own", async () => {
    for (const name of ['asset-balances', 'pool-asset-balances']) {
      for (const ids of ['abc', '-1', '1.5']) {
        expect(await compareError(route(accounts.Alice, name, `?assets[]=1&assets[]=${ids}`), 400)).toBe(
          `Incorrect AssetId format: ${ids} is not a positive integer.`,
        );
      }
      // Beyond a u32: sidecar passes on polkadot.js's words, fastcar says what it is.
      expect(await compareError(route(accounts.Alice, name, '?assets[]=4294967296'), 400, false)).toMatch(
        /^Asset id 4294967296 is not an asset id of this chain/,
      );
      for (const address of ['abc', `${accounts.Alice.slice(0, -1)}Z`, '0x1234']) await compareError(route(address, name), 400);
      await compareError(route(accounts.Alice, name, '?at=abc'), 400);
    }
  });

  it('refuses more named assets than the bound before asking the node', async () => {
    // Short ids, so that 1500 of them stay within the URL's bound.
    const named = (count: number) => Array.from({ length: count }, (_, i) => `assets=${i % 10}`).join('&');
    expect(rpcCost(await getJson(fastcar.url + route(accounts.Alice, 'asset-balances', `?at=3&${named(500)}`)))[0]).toBeGreaterThan(0);
    // Beyond the query parser's 1000 pairs too: refused, never cut short.
    for (const count of [501, 1500]) {
      const answer = await getJson(fastcar.url + route(accounts.Alice, 'pool-asset-balances', `?${named(count)}`));
      expect([answer.status, (answer.body as { message: string }).message]).toEqual([400, 'At most 500 assets may be named in one request.']);
      expect(rpcCost(answer)).toEqual([0, 0]);
    }
  });

  it('reads named assets in one wave once `at` is resolved, and every asset in two (the list, then the balances)', async () => {
    const height = manifest.head.number - 2;
    const hash = await hashOf(height);
    // The first read at a block learns its runtime version (kept by hash from then on).
    await getJson(fastcar.url + route(accounts.Alice, 'asset-balances', `?at=${height}`));
    await getJson(fastcar.url + route(accounts.Alice, 'asset-balances', `?at=${hash}`));
    // A height already resolved: every named balance in one state_queryStorageAt.
    expect(rpcCost(await getJson(fastcar.url + route(accounts.Bob, 'asset-balances', `?at=${height}&assets[]=1&assets[]=2&assets[]=3`)))).toEqual([1, 1]);
    // A hash: its header (for the height) beside them, the same wave.
    expect(rpcCost(await getJson(fastcar.url + route(accounts.Bob, 'pool-asset-balances', `?at=${hash}&assets[]=0`)))).toEqual([2, 1]);
    // Every asset: the ids listed (one page) beside the header, then the balances.
    expect(rpcCost(await getJson(fastcar.url + route(accounts.Bob, 'asset-balances', `?at=${hash}`)))).toEqual([3, 2]);
    expect(rpcCost(await getJson(fastcar.url + route(accounts.Bob, 'asset-balances', `?at=${height}`)))).toEqual([2, 2]);
  });

  it('lets clients keep an answer at a finalized block, per account and asset list, never one at the head', async () => {
    const atBlock = await getJson(fastcar.url + route(accounts.Alice, 'asset-balances', '?at=9&assets[]=1'));
    const etag = atBlock.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"0x[0-9a-f]{64}-assetBalances-[0-9a-f]{16}-\d+"$/);
    const others = [route(accounts.Bob, 'asset-balances', '?at=9&assets[]=1'), route(accounts.Alice, 'asset-balances', '?at=9')];
    for (const other of others) expect((await getJson(fastcar.url + other)).headers.get('etag')).not.toBe(etag);
    expect((await getJson(fastcar.url + route(accounts.Alice, 'asset-balances'))).headers.get('etag')).toBeNull();
  });
});

describe('/accounts/{accountId}/asset-approvals and /pool-asset-approvals', () => {
  it('answers as sidecar 20 at the head, by height and by hash', async () => {
    const hash = await hashOf(manifest.blocks.feeInAsset);
    for (const name of ['asset-approvals', 'pool-asset-approvals']) {
      for (const query of [
        `?assetId=1&delegate=${accounts.Bob}`,
        `?assetId=0&delegate=${accounts.Alice}&at=${hash}`,
        `?assetId=7&delegate=${accounts.Eve}&at=3`,
      ]) {
        const answer = (await compare(route(accounts.Alice, name, query))) as Record<string, unknown>;
        expect(answer).toMatchObject({ amount: null, deposit: null });
      }
    }
  });

  it("refuses a missing delegate or asset id, and malformed ones, with sidecar's status", async () => {
    for (const name of ['asset-approvals', 'pool-asset-approvals']) {
      for (const query of ['', '?assetId=1', `?delegate=${accounts.Bob}`, `?assetId=1&assetId=2&delegate=${accounts.Bob}`]) {
        expect(await compareError(route(accounts.Alice, name, query), 400)).toBe('Must include a `delegate` and `assetId` query param');
      }
      expect(await compareError(route(accounts.Alice, name, `?assetId=x&delegate=${accounts.Bob}`), 400)).toBe('`assetId` provided is not a number.');
      // A bad delegate: sidecar passes on polkadot.js's words; fastcar names the parameter.
      expect(await compareError(route(accounts.Alice, name, '?assetId=1&delegate=abc'), 400, false)).toMatch(/^delegate: /);
      await compareError(route('abc', name, `?assetId=1&delegate=${accounts.Bob}`), 400);
    }
  });

  it('reads the approval in one wave once `at` is resolved', async () => {
    const height = manifest.head.number - 4;
    await getJson(fastcar.url + route(accounts.Alice, 'asset-approvals', `?assetId=1&delegate=${accounts.Bob}&at=${height}`));
    expect(rpcCost(await getJson(fastcar.url + route(accounts.Bob, 'asset-approvals', `?assetId=1&delegate=${accounts.Eve}&at=${height}`)))).toEqual([1, 1]);
  });
});

describe('/accounts/{accountId}/foreign-asset-balances', () => {
  it('answers as sidecar 20: every foreign asset held, and a chosen list of locations', async () => {
    const here = encodeURIComponent(JSON.stringify({ v4: { parents: 1, interior: { here: null } } }));
    const asset = encodeURIComponent(JSON.stringify({ V5: { parents: 1, interior: { x1: [{ parachain: 1000 }] } } }));
    for (const query of ['', `?foreignAssets[]=${here}`, `?foreignAssets[]=${here}&foreignAssets[]=${asset}`, '?at=5']) {
      const answer = (await compare(route(accounts.Alice, 'foreign-asset-balances', query))) as { foreignAssets: unknown[] };
      // The devnet has no foreign assets: held, none.
      expect(answer.foreignAssets).toEqual([]);
    }
  });

  it("refuses a location that is not a versioned location's JSON with sidecar's message", async () => {
    for (const text of ['abc', JSON.stringify({ parents: 1, interior: { here: null } })]) {
      const message = await compareError(route(accounts.Alice, 'foreign-asset-balances', `?foreignAssets[]=${encodeURIComponent(text)}`), 400);
      expect(message).toBe(`Invalid JSON format for multilocation: ${text}`);
    }
  });
});

describe('where fastcar differs from sidecar 20', () => {
  it('reads a single `assets=1` as a list of one, where sidecar 20 ignores it and lists every asset', async () => {
    const { theirs, ours } = await both(route(accounts.Alice, 'asset-balances', '?assets=1'));
    expect((ours.body as { assets: unknown[] }).assets).toEqual(
      ((await compare(route(accounts.Alice, 'asset-balances', '?assets[]=1'))) as { assets: unknown[] }).assets,
    );
    expect((theirs.body as { assets: unknown[] }).assets.length).toBeGreaterThan(1);
  });

  it('answers `at` beyond the head with a 400 and an unknown hash with a 404', async () => {
    const beyond = await getJson(fastcar.url + route(accounts.Alice, 'asset-balances', `?at=${manifest.head.number + 1_000_000}`));
    expect(beyond.status).toBe(400);
    const unknown = await getJson(fastcar.url + route(accounts.Alice, 'asset-approvals', `?assetId=1&delegate=${accounts.Bob}&at=0x${'ab'.repeat(32)}`));
    expect(unknown.status).toBe(404);
  });

  it('refuses useRcBlock without a relay chain node naming the setting, after the address, before the approval parameters', async () => {
    for (const name of ['asset-balances', 'asset-approvals', 'pool-asset-balances', 'pool-asset-approvals', 'foreign-asset-balances']) {
      const message = await compareError(route(accounts.Alice, name, '?useRcBlock=true'), 400, false);
      expect(message).toMatch(/^useRcBlock parameter requires a relay chain node: set FASTCAR_RELAY_URL/);
      expect(await compareError(route('abc', name, '?useRcBlock=true'), 400)).toBe('Invalid decoded address checksum');
      await compareError(route(accounts.Alice, name, '?useRcBlockFormat=object'), 400);
    }
  });
});

describe('useRcBlock=true, with a relay chain node beside the devnet', () => {
  let beside: RelayBeside;
  let withRelay: Fastcar;

  beforeAll(async () => {
    beside = await startRelayBeside(devnet.wsUrl, manifest.blocks.feeInAsset);
    withRelay = await startFastcarOn(devnet.wsUrl, { FASTCAR_RELAY_URL: beside.node.url, FASTCAR_PREBUILD_BLOCKS: '0' });
  }, 180_000);

  afterAll(async () => {
    await withRelay?.close();
    await beside?.node.close();
  });

  it('lists the answer at each block the relay block included, with the relay block it came with', async () => {
    const rcHash = beside.recording.blocks.find((block) => block.number === RELAY_BLOCK)!.hash;
    const header = (await getJson(`${withRelay.url}/blocks/${RELAY_BLOCK}/header?useRcBlock=true`)).body as { ahTimestamp: string }[];
    const queries = [
      ['asset-balances', ''],
      ['asset-balances', '&assets[]=1'],
      ['pool-asset-balances', ''],
      ['asset-approvals', `&assetId=1&delegate=${accounts.Bob}`],
      ['foreign-asset-balances', ''],
    ];
    for (const [name, query] of queries) {
      const own = (await getJson(withRelay.url + route(accounts.Alice, name, `?at=${beside.included.hash}${query}`))).body as Record<string, unknown>;
      const expected = { ...own, rcBlockHash: rcHash, rcBlockNumber: String(RELAY_BLOCK), ahTimestamp: header[0].ahTimestamp };
      const listed = await getJson(withRelay.url + route(accounts.Alice, name, `?useRcBlock=true&at=${RELAY_BLOCK}${query}`));
      expect({ name, body: listed.body }).toEqual({ name, body: [expected] });
      expect(listed.headers.get('cache-control')).toBe('no-store');
      const wrapped = (await getJson(withRelay.url + route(accounts.Alice, name, `?useRcBlock=true&at=${rcHash}&useRcBlockFormat=object${query}`))).body;
      expect(wrapped).toMatchObject({ rcBlock: { hash: rcHash, number: String(RELAY_BLOCK) }, parachainDataPerBlock: [expected] });
    }
    expect((await getJson(withRelay.url + route(accounts.Alice, 'asset-balances', `?useRcBlock=true&at=${RELAY_BLOCK + 1}`))).body).toEqual([]);
  });
});

describe('from a node that does not offer state_queryStorageAt', () => {
  let refusing: RefusingNode;
  let onIt: Fastcar;

  beforeAll(async () => {
    refusing = await startRefusingNode(devnet.wsUrl, ['state_queryStorageAt']);
    onIt = await startFastcarOn(refusing.url, { FASTCAR_PREBUILD_BLOCKS: '0' });
  }, 180_000);

  afterAll(async () => {
    await onIt?.close();
    await refusing?.close();
  });

  it('asks for each entry on its own, one wave later, and answers the same', async () => {
    const paths = [
      route(accounts.Alice, 'asset-balances', '?at=9&assets[]=1&assets[]=7'),
      route(accounts.Alice, 'asset-balances', '?at=9'),
      route(accounts.Alice, 'pool-asset-approvals', `?at=9&assetId=0&delegate=${accounts.Bob}`),
    ];
    for (const path of paths) {
      await getJson(onIt.url + path);
      const answer = await getJson(onIt.url + path);
      expect({ path, body: answer.body }).toEqual({ path, body: (await getJson(fastcar.url + path)).body });
    }
    // Two named assets: the refused call beside the version's (kept), then one state_getStorage each.
    expect(rpcCost(await getJson(onIt.url + paths[0]))).toEqual([3, 2]);
  });
});

describe('listing a map of assets', () => {
  it('reads every key page by page, and refuses a map longer than its bound', async () => {
    const node = new NodeClient({ url: devnet.wsUrl, timeoutMs: 30_000 });
    await node.ready();
    try {
      // System.Account: one key per account the devnet knows.
      const prefix = `${xxhashAsHex('System', 128)}${xxhashAsHex('Account', 128).slice(2)}` as `0x${string}`;
      const hash = manifest.head.hash as `0x${string}`;
      const whole = await listKeys(node, prefix, hash, { maxKeys: 10_000, tooMany: 'too many' });
      expect(whole.length).toBeGreaterThan(6);
      const paged = await listKeys(node, prefix, hash, { maxKeys: 10_000, tooMany: 'too many', pageSize: 2 });
      expect(paged).toEqual(whole);
      await expect(listKeys(node, prefix, hash, { maxKeys: 3, tooMany: 'too many', pageSize: 2 })).rejects.toMatchObject({ status: 400, message: 'too many' });
    } finally {
      await node.disconnect();
    }
  });
});

describe('the ss58 form of an account in another network', () => {
  it('reads the same account whatever the prefix', async () => {
    const keyring = new Keyring({ type: 'sr25519', ss58Format: 0 });
    const polkadot = keyring.addFromUri('//Alice').address;
    await compare(route(polkadot, 'asset-balances', '?assets[]=1'));
    expect(u8aToHex(keyring.decodeAddress(polkadot))).toBe(u8aToHex(keyring.decodeAddress(accounts.Alice)));
  });
});
