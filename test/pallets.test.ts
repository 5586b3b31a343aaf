// The pallet metadata and storage routes against sidecar's final line, 20.14.1, on the
// Asset Hub devnet and (under /rc) its relay chain, one sidecar serving both as fastcar
// does: every pallet's items of every kind, by name and by index, with and without
// onlyIds; items one by one with and without their metadata; every plain storage value
// and maps by their keys, at the head, by height and by hash. Where sidecar answers a
// client's mistake with a 500, fastcar's 400 with the same message is asserted; where
// sidecar reads the wrong dispatchable's metadata, fastcar's right one (docs/differences.md).
import { Keyring } from '@polkadot/keyring';
import { stringCamelCase, u8aToHex } from '@polkadot/util';
import { cryptoWaitReady, decodeAddress, encodeAddress } from '@polkadot/util-crypto';
import Ajv2020 from 'ajv/dist/2020';

import type { Devnet } from '../devnet/chain';
import { startRelayDevnet, type RelayDevnet } from '../devnet/relayChain';
import type { SeedManifest } from '../devnet/seed';
import { startFastcarOn } from '../harness/fastcar';
import { getJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import { RELAY_BLOCK, startRelayBeside, type RelayBeside } from '../harness/relayChain';
import { openApiDocument } from '../src/controllers/families';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { askBoth } from './support/sidecarCompare';
import { eachLimited } from './support/eachLimited';

let devnet: Devnet;
let manifest: SeedManifest;
let relay: RelayDevnet;
let sidecar: Peer;
let fastcar: Fastcar;
const accounts: Record<string, string> = {};

interface Chain {
  name: string;
  /** Where its routes are, on both services. */
  mount: string;
  pallets: { name: string; index: number }[];
}
const chains: Chain[] = [];

const KINDS = ['storage', 'consts', 'errors', 'events', 'dispatchables'] as const;

beforeAll(async () => {
  [{ devnet, manifest }, relay] = await Promise.all([startDevnet(), startRelayDevnet({ port: 0 })]);
  const multiChain = JSON.stringify([{ url: relay.wsUrl, type: 'relay' }]);
  [sidecar, fastcar] = await Promise.all([
    startSidecar(devnet.wsUrl, '/runtime/spec', { SAS_SUBSTRATE_MULTI_CHAIN_URL: multiChain }, 20),
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0', FASTCAR_RELAY_URL: relay.wsUrl }),
  ]);
  await cryptoWaitReady();
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  for (const name of ['Alice', 'Bob', 'Charlie', 'Ferdie']) accounts[name] = keyring.addFromUri(`//${name}`).address;
  accounts.fresh = keyring.addFromUri('//fastcar//fresh').address;
  accounts.neverSeen = encodeAddress(new Uint8Array(32).fill(7), 42);
  for (const [name, mount] of [
    ['assetHub', ''],
    ['relay', '/rc'],
  ] as const) {
    const metadata = (await getJson(`${fastcar.url}${mount}/runtime/metadata`)).body as {
      metadata: Record<string, { pallets: { name: string; index: string }[] }>;
    };
    const pallets = Object.values(metadata.metadata)[0]!.pallets.map((pallet) => ({ name: pallet.name, index: Number(pallet.index) }));
    chains.push({ name, mount, pallets });
  }
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close()]);
  await Promise.all([relay?.close(), devnet?.close()]);
});

const assetHub = () => chains[0]!;
const relayChain = () => chains[1]!;

/** Both answers; sidecar's errors without the stack and log level it adds (fastcar's never have them). */
async function both(path: string) {
  const { theirs, ours } = await askBoth(sidecar.url, fastcar.url, path);
  const { stack: _stack, level: _level, ...body } = theirs.body as Record<string, unknown>;
  expect((ours.body as { stack?: string }).stack).toBeUndefined();
  return { theirs: { ...theirs, body: Array.isArray(theirs.body) ? theirs.body : body }, ours };
}

async function compare(path: string): Promise<Record<string, unknown>> {
  const { theirs, ours } = await both(path);
  expect({ path, status: ours.status }).toEqual({ path, status: theirs.status });
  expect({ path, body: ours.body }).toEqual({ path, body: theirs.body });
  return ours.body as Record<string, unknown>;
}

/** Sidecar's status (a 500 where the client erred) and fastcar's, the same message, and never a stack. */
async function compareError(path: string, status: number, sidecarStatus = status): Promise<string> {
  const { theirs, ours } = await both(path);
  expect({ path, status: theirs.status }).toEqual({ path, status: sidecarStatus });
  expect({ path, status: ours.status }).toEqual({ path, status });
  const body = ours.body as { code: number; message: string; stack?: string };
  expect(body.code).toBe(status);
  expect(body.stack).toBeUndefined();
  expect({ path, message: body.message }).toEqual({ path, message: (theirs.body as { message: string }).message });
  return body.message;
}

function schemaCheck(name: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'fastcar', components: (openApiDocument('test') as { components: unknown }).components });
  return ajv.compile({ $ref: `fastcar#/components/schemas/${name}` });
}

const hashOf = async (mount: string, height: number) =>
  ((await getJson(`${fastcar.url}${mount}/blocks/${height + 1}/header`)).body as { parentHash: string }).parentHash;
const rpcCost = (answer: { headers: Headers }) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];

describe('lists of items', () => {
  it("lists every pallet's items of every kind as sidecar 20 on both chains, by name and by index, with and without onlyIds", async () => {
    const check = { storage: schemaCheck('PalletStorage'), consts: schemaCheck('PalletConstants'), errors: schemaCheck('PalletErrors') };
    let answered = 0;
    for (const chain of chains) {
      await eachLimited(chain.pallets, 4, async (pallet) => {
        for (const kind of KINDS) {
          // A pallet without items of this kind: sidecar's 400 and message.
          const byName = await compare(`${chain.mount}/pallets/${pallet.name}/${kind}`);
          if (!('items' in byName)) continue;
          answered++;
          const ids = await compare(`${chain.mount}/pallets/${pallet.index}/${kind}?onlyIds=true`);
          expect((ids.items as unknown[]).every((id) => typeof id === 'string')).toBe(true);
          if (kind in check) {
            const validate = check[kind as keyof typeof check];
            expect({ kind, valid: validate(byName), errors: validate.errors ?? null }).toEqual({ kind, valid: true, errors: null });
          }
        }
      });
    }
    expect(answered).toBeGreaterThan(100);
  }, 600_000);

  it('reads a pallet id as sidecar 20: any case, snake or kebab case, and numbers as JavaScript reads them', async () => {
    for (const palletId of ['System', 'SYSTEM', 'parachain_system', 'parachain-system', 'ParachainSystem', '0', '0x0', '1e1', '10.0', '-10', 'assets']) {
      await compare(`/pallets/${palletId}/consts?onlyIds=true`);
    }
    await compare('/pallets/parachain_system/storage?onlyIds=true');
    await compare('/pallets/1e1/consts?onlyIds=true');
  });

  it('lists at a height and at a hash as sidecar 20, kept by clients at a final block', async () => {
    const hash = await hashOf('', manifest.blocks.assetCreate);
    for (const query of [`?at=${manifest.blocks.assetCreate}`, `?at=${hash}`, '?at=2&onlyIds=true', '?at=']) {
      await compare(`/pallets/assets/storage${query}`);
      await compare(`/pallets/balances/events${query}`);
    }
    const first = await getJson(`${fastcar.url}/pallets/balances/errors?at=${hash}`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(first.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${fastcar.url}/pallets/balances/errors?at=${hash}`, { headers: { 'if-none-match': etag! } })).status).toBe(304);
    // Another spelling of the same answer is another tag (its body names the pallet the same, but the tag follows the request).
    expect((await getJson(`${fastcar.url}/pallets/balances/errors?at=${hash}&onlyIds=true`)).headers.get('etag')).not.toBe(etag);
  });
});

describe('items one by one', () => {
  /** Those of `names` the relay devnet's runtime has, camel-cased. */
  const relayPallets = (names: string[]) => {
    const found = names.filter((name) => relayChain().pallets.some((pallet) => pallet.name === name)).map((name) => stringCamelCase(name));
    expect(found.length).toBeGreaterThan(1);
    return found;
  };
  /** Each item name of a pallet's kind, from fastcar's list (checked against sidecar's above). */
  const namesOf = async (mount: string, pallet: string, kind: string) => {
    const { items } = (await getJson(`${fastcar.url}${mount}/pallets/${pallet}/${kind}?onlyIds=true`)).body as { items?: string[] };
    expect({ mount, pallet, kind, listed: Array.isArray(items) }).toEqual({ mount, pallet, kind, listed: true });
    return items ?? [];
  };

  /**
   * An item with its metadata against sidecar's: the same where sidecar reads the item asked
   * for; where it reads another (it looks errors, events and calls up by their index among
   * those listed, which past a gap in the indices is another item, or none: a 500), fastcar's
   * names the item asked for. Whether sidecar misread it.
   */
  async function compareItem(mount: string, pallet: string, kind: string, name: string): Promise<boolean> {
    const path = `${mount}/pallets/${pallet}/${kind}/${name}?metadata=true`;
    const { theirs, ours } = await both(path);
    expect({ path, status: ours.status }).toEqual({ path, status: 200 });
    // Past the end of the list, sidecar reads nothing and fails.
    if (theirs.status === 500) return true;
    const [their, own] = [theirs.body, ours.body] as { metadata?: { name: string } }[];
    const spelled = (text: string) => (kind === 'dispatchables' ? stringCamelCase(text) : text);
    expect({ path, name: spelled(own!.metadata!.name) }).toEqual({ path, name });
    if (their?.metadata && spelled(their.metadata.name) === name) {
      expect({ path, body: own }).toEqual({ path, body: their });
      return false;
    }
    const { metadata: _theirs, ...theirRest } = their as Record<string, unknown>;
    const { metadata: _ours, ...ourRest } = own as Record<string, unknown>;
    expect({ path, body: ourRest }).toEqual({ path, body: theirRest });
    return true;
  }

  it('answers every constant, error, event and dispatchable of a few pallets as sidecar 20, with and without metadata, however cased', async () => {
    const check = schemaCheck('PalletConstantItem');
    const misread: string[] = [];
    for (const [mount, pallets] of [
      ['', ['system', 'balances', 'assets', 'assetConversion']],
      ['/rc', relayPallets(['Balances', 'Staking', 'Paras', 'XcmPallet'])],
    ] as const) {
      for (const pallet of pallets) {
        for (const kind of ['consts', 'errors', 'events', 'dispatchables'] as const) {
          await eachLimited(await namesOf(mount, pallet, kind), 4, async (name) => {
            if (await compareItem(mount, pallet, kind, name)) misread.push(`${mount}/${pallet}/${kind}/${name}`);
            const plain = await compare(`${mount}/pallets/${pallet}/${kind}/${stringCamelCase(name)}`);
            if (kind === 'consts') expect(check(plain)).toBe(true);
          });
        }
      }
    }
    // Balances has no call 1: sidecar answers transferKeepAlive with transfer_all's metadata; constants are found by name.
    expect(misread).toContain('/balances/dispatchables/transferKeepAlive');
    expect(misread.filter((item) => item.includes('/consts/'))).toEqual([]);
    await compare('/pallets/balances/errors/INSUFFICIENTBALANCE');
    await compare('/pallets/balances/consts/existential_deposit?metadata=true');
    await compare('/pallets/balances/dispatchables/transfer_allow_death?metadata=true');
    await compare('/pallets/balances/dispatchables/TRANSFER_ALLOW_DEATH');
  }, 300_000);

  it("refuses a missing item with sidecar's message, a 400 where sidecar answers 500", async () => {
    for (const kind of ['consts', 'errors', 'events', 'dispatchables', 'storage']) {
      await compareError(`/pallets/balances/${kind}/nope`, 400, 500);
      await compareError(`/rc/pallets/balances/${kind}/nope`, 400, 500);
    }
    expect(await compareError('/pallets/system/storage/nope', 400, 500)).toBe(
      `Could not find storage item ("nope") in metadata. storage item names are expected to be in camel case, e.g. 'storageItemId'`,
    );
  });

  it("refuses an unknown pallet, or one without the kind asked for, with sidecar's 400", async () => {
    expect(await compareError('/pallets/nope/consts', 400)).toBe('"nope" was not recognized as a queryable pallet.');
    await compareError('/pallets/999/storage/number', 400);
    // Sidecar fails on an index past 2^26 (bn.js refuses to compare with it).
    const huge = await both('/pallets/12345678901234567890/consts');
    expect([huge.theirs.status, huge.ours.status, (huge.ours.body as { message: string }).message]).toEqual([
      500,
      400,
      '"12345678901234567890" was not recognized as a queryable pallet.',
    ]);
    expect(await compareError('/pallets/timestamp/errors/anything', 400)).toBe('no queryable errors items found for palletId "timestamp"');
    await compareError('/rc/pallets/nope/events', 400);
  });
});

describe('storage items', () => {
  /** Every plain storage item of every pallet of the chain, by its camel-cased name. */
  async function plainItems(chain: Chain): Promise<[string, string][]> {
    const found: [string, string][] = [];
    for (const pallet of chain.pallets) {
      const answer = await getJson(`${fastcar.url}${chain.mount}/pallets/${pallet.index}/storage`);
      if (answer.status !== 200) continue;
      for (const item of (answer.body as { items: { name: string; type: Record<string, unknown> }[] }).items) {
        if ('plain' in item.type) found.push([pallet.name, stringCamelCase(item.name)]);
      }
    }
    return found;
  }

  it('reads every plain storage value of both chains as sidecar 20, at the head, by height and by hash', async () => {
    const check = schemaCheck('PalletStorageItem');
    for (const chain of chains) {
      const heights = chain === assetHub() ? [manifest.blocks.assetPool, manifest.blocks.multisigExecute] : [relay.transferBlock];
      const hash = await hashOf(chain.mount, heights[0]!);
      const items = await plainItems(chain);
      expect(items.length).toBeGreaterThan(20);
      await eachLimited(items, 4, async ([pallet, item]) => {
        const head = await compare(`${chain.mount}/pallets/${pallet}/storage/${item}`);
        expect(check(head)).toBe(true);
        for (const query of [...heights.map((height) => `?at=${height}`), `?at=${hash}&metadata=true`])
          await compare(`${chain.mount}/pallets/${pallet}/storage/${item}${query}`);
      });
    }
  }, 600_000);

  it('reads maps by their keys as sidecar 20: accounts (seeded and never seen), assets, double maps, block hashes', async () => {
    const assetsHash = await hashOf('', manifest.blocks.assetMintTransfer);
    for (const address of Object.values(accounts)) {
      for (const query of ['', `&at=${manifest.blocks.transfers}`, `&at=${assetsHash}&metadata=true`]) {
        await compare(`/pallets/system/storage/account?keys[]=${address}${query}`);
        await compare(`/pallets/balances/storage/locks?keys[]=${address}${query}`);
        await compare(`/pallets/assets/storage/account?keys[]=1&keys[]=${address}${query}`);
        await compare(`/rc/pallets/system/storage/account?keys[]=${address}`);
      }
    }
    const alice = await compare(`/pallets/System/storage/Account?keys[]=${accounts.Alice}`);
    expect((alice.value as { nonce: string }).nonce).not.toBe('0');
    // The same account as hex, and in another network's format, names the same entry.
    const aliceKey = u8aToHex(decodeAddress(accounts.Alice!));
    for (const key of [aliceKey, encodeAddress(aliceKey, 0)])
      expect((await compare(`/pallets/system/storage/account?keys[]=${key}`)).value).toEqual(alice.value);
    for (const query of ['keys[]=1', 'keys[]=999', `keys[]=1&at=${manifest.blocks.assetCreate - 1}`, `keys[]=1&at=${manifest.blocks.assetCreate}`]) {
      await compare(`/pallets/assets/storage/asset?${query}`);
      await compare(`/pallets/assets/storage/metadata?${query}&metadata=true`);
    }
    expect((await compare('/pallets/assets/storage/asset?keys[]=999')).value).toBeNull();
    for (const height of [0, 5, manifest.head.number]) {
      await compare(`/pallets/system/storage/blockHash?keys[]=${height}`);
      await compare(`/rc/pallets/system/storage/blockHash?keys[]=${Math.min(height, relay.head)}`);
    }
    // Keys repeated without brackets are read alike by both.
    await compare(`/pallets/assets/storage/account?keys=1&keys=${accounts.Bob}`);
    const events = await compare(`/pallets/system/storage/events?at=${manifest.blocks.batches}`);
    expect((events.value as unknown[]).length).toBeGreaterThan(3);
  }, 300_000);

  it('reads a storage value in one wave once the block is known, keeping nothing that can change', async () => {
    const path = `/pallets/system/storage/account?keys[]=${accounts.Bob}&at=${manifest.blocks.transfers}`;
    await getJson(fastcar.url + path);
    const again = await getJson(fastcar.url + path);
    expect(rpcCost(again)).toEqual([1, 1]);
    const hash = await hashOf('', manifest.blocks.transfers);
    const byHash = await getJson(`${fastcar.url}/pallets/system/storage/number?at=${hash}`);
    // The header (for the height) and the value, together.
    expect(rpcCost(byHash)).toEqual([2, 1]);
    expect(byHash.headers.get('etag')).toBeTruthy();
    const list = await getJson(`${fastcar.url}/pallets/system/storage?at=${hash}`);
    expect(rpcCost(list)[0]).toBeLessThanOrEqual(1);
  });

  it('refuses wrong keys with a 400 where sidecar answers 500, and too many before any work', async () => {
    const paths = [
      '/pallets/system/storage/account',
      '/pallets/system/storage/number?keys[]=1',
      '/pallets/assets/storage/account?keys[]=1',
      `/pallets/system/storage/account?keys[]=${accounts.Alice}&keys[]=${accounts.Bob}`,
      '/pallets/system/storage/blockHash?keys[]=abc',
      '/pallets/system/storage/account?keys[]=nope',
    ];
    for (const path of paths) {
      const { theirs, ours } = await both(path);
      expect({ path, theirs: theirs.status, ours: ours.status }).toEqual({ path, theirs: 500, ours: 400 });
      expect((ours.body as { stack?: string }).stack).toBeUndefined();
    }
    expect(((await getJson(`${fastcar.url}/pallets/system/storage/number?keys[]=1`)).body as { message: string }).message).toBe(
      'system.Number is a plain value, taking no keys (keys[]), 1 given.',
    );
    const many = await getJson(`${fastcar.url}/pallets/system/storage/account?${'keys[]=1&'.repeat(17)}`);
    expect([many.status, rpcCost(many)]).toEqual([400, [0, 0]]);
  });

  it('refuses a malformed `at` and an unknown block as sidecar 20', async () => {
    await compareError('/pallets/system/storage/number?at=x', 400);
    await compareError('/pallets/system/consts?at=-1', 400);
    const unknown = await getJson(`${fastcar.url}/pallets/system/storage/number?at=0x${'ab'.repeat(32)}`);
    expect(unknown.status).toBe(404);
  });
});

describe('hostile input', () => {
  it('answers hostile pallet ids, item names, keys and flags with a JSON 4xx, never a 5xx', async () => {
    const ids = [
      '%00',
      encodeURIComponent('パレット'),
      '__proto__',
      'constructor',
      'toString',
      '9'.repeat(400),
      '1e309',
      '-0',
      '0x',
      'a'.repeat(5000),
      '%E0%A4%A',
    ];
    const keys = ['', '0x', '1e309', '-1', '__proto__', '{"a":1}', '[1,2]', 'null', 'x'.repeat(4000), `0x${'ff'.repeat(4000)}`, encodeURIComponent('ü')];
    const paths: string[] = [];
    for (const id of ids) {
      for (const kind of KINDS) paths.push(`/pallets/${id}/${kind}`, `/pallets/system/${kind}/${id}`, `/rc/pallets/balances/${kind}/${id}?metadata=true`);
    }
    for (const key of keys) {
      paths.push(
        `/pallets/system/storage/account?keys[]=${key}`,
        `/pallets/system/storage/blockHash?keys[]=${key}`,
        `/pallets/assets/storage/account?keys[]=${key}&keys[]=${key}`,
        `/pallets/foreignAssets/storage/asset?keys[]=${key}`,
        `/pallets/system/storage/number?keys[]=${key}&at=${key}`,
      );
    }
    paths.push('/pallets/system/storage?onlyIds=maybe', '/pallets/system/storage/number?metadata[]=true', '/pallets/system/consts?useRcBlockFormat=table');
    const failures: string[] = [];
    for (const path of paths) {
      const answer = await getJson(fastcar.url + path);
      const body = answer.body as { message?: unknown; stack?: unknown };
      if (answer.status < 400 || answer.status >= 500 || typeof body.message !== 'string' || body.stack !== undefined) {
        if (answer.status !== 200) failures.push(`${path.slice(0, 120)}: ${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    // Still answering.
    expect((await getJson(`${fastcar.url}/pallets/system/storage/number`)).status).toBe(200);
  }, 120_000);
});

describe('every mount', () => {
  it('answers the same under /v1 and /v1/rc', async () => {
    for (const path of [`/pallets/system/storage/account?keys[]=${accounts.Alice}&at=5`, '/pallets/balances/consts?at=3', '/pallets/system/errors/nope']) {
      const [plain, v1] = await Promise.all([getJson(fastcar.url + path), getJson(`${fastcar.url}/v1${path}`)]);
      expect([v1.status, v1.body]).toEqual([plain.status, plain.body]);
      const [rc, v1rc] = await Promise.all([getJson(`${fastcar.url}/rc${path}`), getJson(`${fastcar.url}/v1/rc${path}`)]);
      expect([v1rc.status, v1rc.body]).toEqual([rc.status, rc.body]);
    }
  });

  it('lists what a relay block included with useRcBlock as sidecar 20 (none on the devnet), and checks it as sidecar does', async () => {
    for (const path of ['/pallets/system/storage/number', '/pallets/balances/consts', '/pallets/balances/errors/insufficientBalance']) {
      expect(await compare(`${path}?useRcBlock=true&at=2`)).toEqual([]);
      await compare(`${path}?useRcBlock=true&at=2&useRcBlockFormat=object`);
    }
    await compareError('/pallets/system/storage/number?useRcBlockFormat=object', 400);
    const own = await getJson(`${fastcar.url}/rc/pallets/system/storage/number?useRcBlock=true`);
    expect([own.status, (own.body as { message: string }).message]).toEqual([
      400,
      'useRcBlock parameter is only supported for parachain (Asset Hub) endpoints',
    ]);
    expect(relayChain().pallets.length).toBeGreaterThan(assetHub().pallets.length / 2);
  });
});

describe('useRcBlock beside a relay chain that included a block', () => {
  // Recorded Polkadot history whose relay block RELAY_BLOCK is re-pointed to include a seeded block (harness/relayChain.ts);
  // sidecar cannot be pointed at it, so fastcar's answer is checked against its own answer at the included block.
  let beside: RelayBeside;
  let withRelay: Fastcar;

  beforeAll(async () => {
    beside = await startRelayBeside(devnet.wsUrl, manifest.blocks.assetMintTransfer);
    withRelay = await startFastcarOn(devnet.wsUrl, { FASTCAR_RELAY_URL: beside.node.url, FASTCAR_PREBUILD_BLOCKS: '0' });
  }, 180_000);

  afterAll(async () => {
    await withRelay?.close();
    await beside?.node.close();
  });

  it('lists the answer at the included block with the relay block it came with, as an array or an object', async () => {
    const rcBlock = beside.recording.blocks.find((block) => block.number === RELAY_BLOCK)!;
    const timestamp = (await getJson(`${withRelay.url}/blocks/${RELAY_BLOCK}/header?useRcBlock=true`)).body as { ahTimestamp: string }[];
    const relayFields = { rcBlockHash: rcBlock.hash, rcBlockNumber: String(RELAY_BLOCK), ahTimestamp: timestamp[0]!.ahTimestamp };
    const paths: [string, string][] = [
      [`/pallets/assets/storage/account?keys[]=1&keys[]=${accounts.Alice}&metadata=true`, 'PalletStorageItem'],
      ['/pallets/system/storage/number', 'PalletStorageItem'],
      ['/pallets/assets/storage?onlyIds=true', 'PalletStorage'],
      ['/pallets/balances/consts/existentialDeposit?metadata=true', 'PalletConstantItem'],
      ['/pallets/balances/dispatchables?onlyIds=true', 'PalletDispatchables'],
    ];
    for (const [path, schema] of paths) {
      const glue = path.includes('?') ? '&' : '?';
      const own = (await getJson(`${withRelay.url}${path}${glue}at=${beside.included.hash}`)).body as Record<string, unknown>;
      const list = await getJson(`${withRelay.url}${path}${glue}useRcBlock=true&at=${RELAY_BLOCK}`);
      expect({ path, status: list.status, body: list.body }).toEqual({ path, status: 200, body: [{ ...own, ...relayFields }] });
      expect(list.headers.get('cache-control')).toBe('no-store');
      const object = await getJson(`${withRelay.url}${path}${glue}useRcBlock=true&useRcBlockFormat=object&at=${rcBlock.hash}`);
      const wrapped = { rcBlock: { hash: rcBlock.hash, parentHash: rcBlock.header.parentHash, number: String(RELAY_BLOCK) }, parachainDataPerBlock: list.body };
      expect(object.body).toEqual(wrapped);
      const check = schemaCheck(schema);
      for (const body of [list.body, object.body])
        expect({ path, valid: check(body), errors: check.errors ?? null }).toEqual({ path, valid: true, errors: null });
    }
    const value = (await getJson(`${withRelay.url}/pallets/system/storage/number?useRcBlock=true&at=${RELAY_BLOCK}`)).body as { value: string }[];
    expect(value[0]!.value).toBe(String(manifest.blocks.assetMintTransfer));
  });
});
