// /accounts/{accountId}/vesting-info and /proxy-info against sidecar's final line,
// 20.14.1, on the same devnet and its relay chain (sidecar given both, as fastcar is):
// an account given two vesting schedules by vestedTransfer, that later claims part of
// them, and accounts that named proxies, created here by signed extrinsics on both
// chains; every answer compared at the head, at heights before and after, by hash,
// with and without includeClaimable (worked out on the relay chain, whose schedules
// run on its own heights; answered as stored on Asset Hub before the migration, as
// sidecar does), and the errors; the node calls and waves of each read asserted.
import { ApiPromise, Keyring, WsProvider } from '@polkadot/api';
import Ajv2020 from 'ajv/dist/2020';
import type { KeyringPair } from '@polkadot/keyring/types';
import { u8aToHex } from '@polkadot/util';
import { cryptoWaitReady, decodeAddress, encodeAddress } from '@polkadot/util-crypto';

import type { Devnet } from '../devnet/chain';
import { startRelayDevnet, type RelayDevnet } from '../devnet/relayChain';
import { startFastcarOn } from '../harness/fastcar';
import { getJson, getReferenceJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import { RELAY_BLOCK, startRelayBeside, type RelayBeside } from '../harness/relayChain';
import { openApiDocument } from '../src/controllers/families';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { startRefusingNode } from './support/refusingNode';

const UNIT = 10n ** 12n;
const ETHEREUM = '0x8eaf04151687736326c9fea17e25fc5287613693';

interface Chain {
  name: 'assetHub' | 'relay';
  api: ApiPromise;
  /** fastcar's mount for this chain. */
  mount: '' | '/rc';
  /** Heights: before the vesting, where it was given, where part was claimed, the head. */
  before: number;
  given: number;
  claimed: number;
  head: number;
}

let devnet: Devnet;
let relay: RelayDevnet;
let sidecar: Peer;
let fastcar: Fastcar;
const chains: Chain[] = [];
let vested: KeyringPair;
const people: Record<string, string> = {};

/** Signs each call with its signer (consecutive nonces per signer) and builds one block of them. */
async function buildWith(api: ApiPromise, calls: [KeyringPair, ReturnType<ApiPromise['tx']['system']['remark']>][]): Promise<number> {
  const nonces = new Map<string, number>();
  const transactions: string[] = [];
  for (const [signer, call] of calls) {
    const nonce = nonces.get(signer.address) ?? (await api.rpc.system.accountNextIndex(signer.address)).toNumber();
    nonces.set(signer.address, nonce + 1);
    transactions.push((await call.signAsync(signer, { nonce, era: 0 })).toHex());
  }
  await api.rpc('dev_newBlock' as never, (transactions.length ? { transactions } : {}) as never);
  return (await api.rpc.chain.getHeader()).number.toNumber();
}

const emptyBlocks = async (api: ApiPromise, count: number) => {
  for (let i = 0; i < count; i++) await buildWith(api, []);
};

/** Two schedules (one starting at once, one a few blocks on) and free funds for fees; proxies named by Alice and Bob; a claim some blocks later. */
async function seed(api: ApiPromise, name: Chain['name'], mount: Chain['mount']): Promise<Chain> {
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  const [alice, bob] = ['//Alice', '//Bob'].map((uri) => keyring.addFromUri(uri));
  const before = (await api.rpc.chain.getHeader()).number.toNumber();
  const vestedTransfer = (locked: bigint, perBlock: bigint, startingBlock: number) =>
    api.tx.vesting.vestedTransfer(vested.address, { locked, perBlock, startingBlock });
  const schedules = [
    { locked: 100n * UNIT, perBlock: 3n * UNIT, startingBlock: before + 1 },
    { locked: 50n * UNIT, perBlock: 5n * UNIT, startingBlock: before + 4 },
  ];
  const calls: Parameters<typeof buildWith>[1] = [
    [alice, api.tx.balances.transferKeepAlive(vested.address, 10n * UNIT)],
    [alice, api.tx.proxy.addProxy(people.Dave, 'NonTransfer', 3)],
    [bob, api.tx.proxy.addProxy(people.Charlie, 'Any', 0)],
  ];
  if (name === 'relay') {
    calls.push(...schedules.map((one) => [alice, vestedTransfer(one.locked, one.perBlock, one.startingBlock)] as (typeof calls)[number]));
  } else {
    // Asset Hub refuses vesting calls before the migration brings vesting over: the schedules are written into the block's state.
    await buildWith(api, []);
    const stored = schedules.map((one) => ({ locked: String(one.locked), perBlock: String(one.perBlock), startingBlock: one.startingBlock }));
    await api.rpc('dev_setStorage' as never, { Vesting: { Vesting: [[[vested.address], stored]] } } as never);
  }
  const given = await buildWith(api, calls);
  await emptyBlocks(api, 4);
  const claimed = await buildWith(api, [[vested, api.tx.vesting.vest()]]);
  await emptyBlocks(api, 3);
  const head = (await api.rpc.chain.getHeader()).number.toNumber();
  return { name, api, mount, before, given, claimed, head };
}

beforeAll(async () => {
  [{ devnet }, relay] = await Promise.all([startDevnet(), startRelayDevnet({ port: 0 })]);
  await cryptoWaitReady();
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  vested = keyring.addFromUri('//fastcar//vested');
  for (const name of ['Alice', 'Bob', 'Charlie', 'Dave', 'Ferdie']) people[name] = keyring.addFromUri(`//${name}`).address;
  const [hubApi, relayApi] = await Promise.all(
    [devnet.wsUrl, relay.wsUrl].map((url) => ApiPromise.create({ provider: new WsProvider(url), noInitWarn: true })),
  );
  chains.push(await seed(hubApi!, 'assetHub', ''), await seed(relayApi!, 'relay', '/rc'));
  const multiChain = JSON.stringify([{ url: relay.wsUrl, type: 'relay' }]);
  [sidecar, fastcar] = await Promise.all([
    startSidecar(devnet.wsUrl, '/runtime/spec', { SAS_SUBSTRATE_MULTI_CHAIN_URL: multiChain }, 20),
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0', FASTCAR_RELAY_URL: relay.wsUrl }),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close(), ...chains.map((chain) => chain.api.disconnect())]);
  await Promise.all([relay?.close(), devnet?.close()]);
});

/** Sidecar's path for a chain's route: its relay chain routes are under /rc too. */
async function both(chain: Chain, path: string) {
  const [theirs, ours] = await Promise.all([getReferenceJson(sidecar.url + chain.mount + path), getJson(fastcar.url + chain.mount + path)]);
  return { theirs, ours };
}

async function compare(chain: Chain, path: string): Promise<Record<string, unknown>> {
  const { theirs, ours } = await both(chain, path);
  expect({ chain: chain.name, path, status: ours.status }).toEqual({ chain: chain.name, path, status: theirs.status });
  expect({ chain: chain.name, path, body: ours.body }).toEqual({ chain: chain.name, path, body: theirs.body });
  return ours.body as Record<string, unknown>;
}

async function compareError(chain: Chain, path: string, status: number, sidecarStatus = status, sameMessage = sidecarStatus === status): Promise<string> {
  const { theirs, ours } = await both(chain, path);
  expect({ path, status: theirs.status }).toEqual({ path, status: sidecarStatus });
  expect({ path, status: ours.status }).toEqual({ path, status });
  const body = ours.body as { code: number; message: string; stack?: string };
  expect(body.code).toBe(status);
  expect(body.stack).toBeUndefined();
  if (sameMessage) expect({ path, message: body.message }).toEqual({ path, message: (theirs.body as { message: string }).message });
  return body.message;
}

/** A validator for one of the OpenAPI document's schemas. */
function schemaCheck(name: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'fastcar', components: (openApiDocument('test') as { components: unknown }).components });
  return ajv.compile({ $ref: `fastcar#/components/schemas/${name}` });
}

const vesting = (address: string, query = '') => `/accounts/${address}/vesting-info${query}`;
const proxies = (address: string, query = '') => `/accounts/${address}/proxy-info${query}`;
const rpcCost = (answer: { headers: Headers }) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];
const hashAt = async (chain: Chain, height: number) => (await chain.api.rpc.chain.getBlockHash(height)).toHex();
const heightsOf = (chain: Chain) => [chain.before, chain.given, chain.given + 2, chain.claimed - 1, chain.claimed, chain.head];

describe('/accounts/{accountId}/vesting-info', () => {
  it('answers as sidecar 20 on both chains, with and without includeClaimable, at every height from before the vesting to the head', async () => {
    for (const chain of chains) {
      for (const address of [vested.address, people.Alice, people.Ferdie]) {
        for (const flag of ['', '?includeClaimable=true', '?includeClaimable=false']) {
          await compare(chain, vesting(address, flag));
          for (const height of heightsOf(chain)) await compare(chain, vesting(address, `${flag ? `${flag}&` : '?'}at=${height}`));
        }
      }
      const stored = await compare(chain, vesting(vested.address, `?at=${chain.given}`));
      expect(stored.vesting).toEqual([
        { locked: String(100n * UNIT), perBlock: String(3n * UNIT), startingBlock: String(chain.before + 1) },
        { locked: String(50n * UNIT), perBlock: String(5n * UNIT), startingBlock: String(chain.before + 4) },
      ]);
      expect(await compare(chain, vesting(people.Alice))).toMatchObject({ vesting: [] });
    }
  }, 120_000);

  it('works out what has vested and can be claimed on the relay chain by its own heights, the claim lowering what remains', async () => {
    const relayChain = chains.find((chain) => chain.name === 'relay')!;
    const before = await compare(relayChain, vesting(vested.address, `?includeClaimable=true&at=${relayChain.claimed - 1}`));
    const after = await compare(relayChain, vesting(vested.address, `?includeClaimable=true&at=${relayChain.claimed}`));
    const height = relayChain.claimed - 1;
    const first = BigInt(height - relayChain.before - 1) * 3n * UNIT;
    const second = BigInt(Math.max(0, height - relayChain.before - 4)) * 5n * UNIT;
    expect(before).toMatchObject({
      vestedBalance: String(first + second),
      vestingTotal: String(150n * UNIT),
      vestedClaimable: String(first + second),
      blockNumberForCalculation: String(height),
      blockNumberSource: 'self',
    });
    expect((before.vesting as { vested: string }[]).map((one) => one.vested)).toEqual([String(first), String(second)]);
    // Claimed in that block: the lock now keeps only what has not vested (the rest of this block's release is claimable).
    expect(BigInt(after.vestedClaimable as string)).toBeLessThan(BigInt(before.vestedClaimable as string));
    expect(Object.keys(after)).toEqual(['at', 'vesting', 'vestedBalance', 'vestingTotal', 'vestedClaimable', 'blockNumberForCalculation', 'blockNumberSource']);
  });

  it('answers the schedules as stored with includeClaimable on Asset Hub before the migration, as sidecar 20', async () => {
    const hub = chains.find((chain) => chain.name === 'assetHub')!;
    const plain = await compare(hub, vesting(vested.address));
    expect(await compare(hub, vesting(vested.address, '?includeClaimable=true'))).toEqual(plain);
  });

  it('answers by hash and by the spellings of `at` as sidecar 20', async () => {
    for (const chain of chains) {
      for (const at of [await hashAt(chain, chain.claimed), await hashAt(chain, chain.before), '0', '', '1e1']) {
        await compare(chain, vesting(vested.address, `?at=${at}`));
        await compare(chain, vesting(vested.address, `?includeClaimable=true&at=${at}`));
      }
    }
  });

  it('answers in the shapes its OpenAPI schema describes, the schedules with and without what has vested', async () => {
    const check = schemaCheck('AccountVestingInfo');
    for (const chain of chains) {
      for (const query of ['', '?includeClaimable=true', `?includeClaimable=true&at=${chain.claimed}`]) {
        const answer = await getJson(fastcar.url + chain.mount + vesting(vested.address, query));
        expect({ query, valid: check(answer.body), errors: check.errors ?? null }).toEqual({ query, valid: true, errors: null });
      }
    }
  });

  it('reads in one wave once `at` is resolved, the header only for a hash; includeClaimable in the same call', async () => {
    for (const chain of chains) {
      const hash = await hashAt(chain, chain.claimed);
      for (const flag of ['', 'includeClaimable=true&']) {
        const path = `${fastcar.url}${chain.mount}${vesting(vested.address, `?${flag}at=`)}`;
        await getJson(`${path}${chain.claimed}`);
        await getJson(`${path}${hash}`);
        // One state_queryStorageAt (schedules, and the locks and relay parent for includeClaimable); the header beside it for a hash.
        expect(rpcCost(await getJson(`${path}${chain.claimed}`))).toEqual([1, 1]);
        expect(rpcCost(await getJson(`${path}${hash}`))).toEqual([2, 1]);
      }
    }
  });

  it('refuses malformed addresses, flags and `at` with sidecar 20 status and message, checking the address first', async () => {
    for (const chain of chains) {
      for (const address of [`${vested.address.slice(0, -1)}Z`, 'abc', '0x']) {
        await compareError(chain, vesting(address), 400);
      }
      // A 32-byte public key as hex is the account itself (sidecar refuses it): the same answer as its address.
      const byKey = await getJson(fastcar.url + chain.mount + vesting(u8aToHex(decodeAddress(vested.address))));
      expect(byKey.body).toEqual((await getJson(fastcar.url + chain.mount + vesting(vested.address))).body);
      for (const at of ['abc', '-1', '1.5', '0x12', '0xzz']) await compareError(chain, vesting(vested.address, `?at=${at}`), 400);
      expect(await compareError(chain, vesting('abc', '?at=x'), 400)).toBe('Invalid decoded address checksum');
      const beyond = await compareError(chain, vesting(vested.address, `?at=${chain.head + 1000}`), 400, 500);
      expect(beyond).toMatch(/^Specified block number is larger than the current largest block/);
      expect(await compareError(chain, vesting(vested.address, `?at=0x${'11'.repeat(32)}`), 404, 500)).toContain('No block with hash');
    }
    const hub = chains[0]!;
    // Sidecar answers 500 for an Ethereum address on a chain of 32-byte accounts; fastcar a 400 that says why, as balance-info does.
    const ethereum = await compareError(hub, vesting(ETHEREUM), 400, 500);
    expect(ethereum).toBe('Ethereum (20-byte) addresses are not accounts on this chain: its accounts are 32 bytes long.');
    // includeClaimable is read as every flag: `1` is refused where sidecar takes it for false.
    await compareError(hub, vesting(vested.address, '?includeClaimable=1'), 400, 200);
  });

  it('checks useRcBlock as sidecar 20, and lists what a relay block included (none on the devnet)', async () => {
    const hub = chains[0]!;
    await compareError(hub, vesting(vested.address, '?useRcBlockFormat=object'), 400);
    await compareError(hub, vesting(vested.address, '?useRcBlock=true&useRcBlockFormat=table'), 400);
    const relayChain = chains[1]!;
    for (const query of ['', '&includeClaimable=true']) {
      expect(await compare(hub, vesting(vested.address, `?useRcBlock=true&at=${relayChain.given}${query}`))).toEqual([]);
      const object = await compare(hub, vesting(vested.address, `?useRcBlock=true&at=${relayChain.given}&useRcBlockFormat=object${query}`));
      expect(object).toMatchObject({ rcBlock: { number: String(relayChain.given) }, parachainDataPerBlock: [] });
    }
    const own = await getJson(`${fastcar.url}/rc${vesting(vested.address, '?useRcBlock=true')}`);
    expect([own.status, (own.body as { message: string }).message]).toEqual([
      400,
      'useRcBlock parameter is only supported for parachain (Asset Hub) endpoints',
    ]);
  });
});

describe('/accounts/{accountId}/proxy-info', () => {
  it('answers as sidecar 20 on both chains for accounts with and without proxies, at every height, by hash', async () => {
    for (const chain of chains) {
      for (const address of [people.Alice, people.Bob, people.Ferdie, vested.address, encodeAddress(decodeAddress(people.Bob), 0)]) {
        await compare(chain, proxies(address));
        for (const height of heightsOf(chain)) await compare(chain, proxies(address, `?at=${height}`));
        await compare(chain, proxies(address, `?at=${await hashAt(chain, chain.given)}`));
      }
      const bob = await compare(chain, proxies(people.Bob));
      expect(bob.delegatedAccounts).toEqual([{ delegate: people.Charlie, proxyType: 'Any', delay: '0' }]);
      expect(BigInt(bob.depositHeld as string)).toBeGreaterThan(0n);
      expect(await compare(chain, proxies(people.Ferdie))).toMatchObject({ delegatedAccounts: [], depositHeld: '0' });
      const alice = await compare(chain, proxies(people.Alice, `?at=${chain.given}`));
      expect((alice.delegatedAccounts as { delegate: string }[]).map((one) => one.delegate)).toContain(people.Dave);
    }
  }, 120_000);

  it('reads in one wave once `at` is resolved, the header only for a hash', async () => {
    for (const chain of chains) {
      const hash = await hashAt(chain, chain.given);
      const path = `${fastcar.url}${chain.mount}${proxies(people.Bob, '?at=')}`;
      await getJson(`${path}${chain.given}`);
      await getJson(`${path}${hash}`);
      expect(rpcCost(await getJson(`${path}${chain.given}`))).toEqual([1, 1]);
      expect(rpcCost(await getJson(`${path}${hash}`))).toEqual([2, 1]);
    }
  });

  it('refuses malformed addresses and `at` as sidecar 20, and checks useRcBlock as it does', async () => {
    for (const chain of chains) {
      for (const address of [`${people.Bob.slice(0, -1)}Z`, 'abc']) await compareError(chain, proxies(address), 400);
      const byKey = await getJson(fastcar.url + chain.mount + proxies(u8aToHex(decodeAddress(people.Bob))));
      expect(byKey.body).toEqual((await getJson(fastcar.url + chain.mount + proxies(people.Bob))).body);
      for (const at of ['abc', '-1', '0x12']) await compareError(chain, proxies(people.Bob, `?at=${at}`), 400);
      expect(await compareError(chain, proxies(people.Bob, `?at=0x${'11'.repeat(32)}`), 404, 500)).toContain('No block with hash');
    }
    const hub = chains[0]!;
    await compareError(hub, proxies(people.Bob, '?useRcBlockFormat=array'), 400);
    expect(await compare(hub, proxies(people.Bob, `?useRcBlock=true&at=${chains[1]!.given}`))).toEqual([]);
  });

  it('lets clients keep an answer at a finalized height, never one at the head', async () => {
    const hub = chains[0]!;
    const atHeight = await getJson(fastcar.url + proxies(people.Bob, `?at=${hub.given}`));
    expect(atHeight.headers.get('etag')).toBeTruthy();
    const again = await getJson(fastcar.url + proxies(people.Bob, `?at=${hub.given}`), { 'if-none-match': atHeight.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect((await getJson(fastcar.url + proxies(people.Bob))).headers.get('cache-control')).toBe('no-store');
    // Another account at the same block is another answer.
    expect((await getJson(fastcar.url + proxies(people.Alice, `?at=${hub.given}`))).headers.get('etag')).not.toBe(atHeight.headers.get('etag'));
    const vestingTag = (await getJson(fastcar.url + vesting(vested.address, `?at=${hub.given}`))).headers.get('etag');
    expect((await getJson(fastcar.url + vesting(vested.address, `?at=${hub.given}&includeClaimable=true`))).headers.get('etag')).not.toBe(vestingTag);
  });
});

describe('/accounts/{accountId}/balance-info of an account holding a lock', () => {
  const balance = (address: string, query = '') => `/accounts/${address}/balance-info${query}`;

  it('answers as sidecar 20 before, while and after the vesting lock holds on the relay chain, and where nothing is locked', async () => {
    const relayChain = chains.find((chain) => chain.name === 'relay')!;
    for (const chain of chains) {
      for (const address of [vested.address, people.Alice, people.Ferdie]) {
        await compare(chain, balance(address));
        for (const height of heightsOf(chain)) await compare(chain, balance(address, `?at=${height}`));
        await compare(chain, balance(address, `?at=${await hashAt(chain, chain.given)}&denominated=true`));
      }
    }
    const held = await compare(relayChain, balance(vested.address, `?at=${relayChain.given}`));
    expect(held.frozen).toBe(String(150n * UNIT));
    expect(held.locks).toEqual([expect.objectContaining({ amount: String(150n * UNIT) })]);
    expect(await compare(relayChain, balance(vested.address, `?at=${relayChain.before}`))).toMatchObject({ frozen: '0', locks: [] });
  }, 120_000);

  it("reads the locks a wave after the account's entry, and only when the entry says something is frozen", async () => {
    const relayChain = chains.find((chain) => chain.name === 'relay')!;
    const path = (address: string) => `${fastcar.url}/rc${balance(address, `?at=${relayChain.given + 1}`)}`;
    // The first read at a block learns its hash and runtime version.
    await getJson(path(people.Ferdie));
    const locked = await getJson(path(vested.address));
    expect([(locked.body as { locks: unknown[] }).locks.length, ...rpcCost(locked)]).toEqual([1, 2, 2]);
    const free = await getJson(path(people.Ferdie));
    expect([(free.body as { frozen: string }).frozen, ...rpcCost(free)]).toEqual(['0', 1, 1]);
  });

  it('asks a node that refused state_queryStorageAt for the locks with state_getStorage at once, and answers the same', async () => {
    const relayChain = chains.find((chain) => chain.name === 'relay')!;
    const refusing = await startRefusingNode(relay.wsUrl, ['state_queryStorageAt']);
    const onIt = await startFastcarOn(refusing.url, { FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      const path = balance(vested.address, `?at=${relayChain.given + 2}`);
      await getJson(onIt.url + balance(people.Ferdie, `?at=${relayChain.given + 2}`));
      const answer = await getJson(onIt.url + path);
      expect(answer.body).toEqual((await getJson(`${fastcar.url}/rc${path}`)).body);
      // The refused call, the account's entry, then its locks: not the refused method again.
      expect(rpcCost(answer)).toEqual([3, 3]);
    } finally {
      await onIt.close();
      await refusing.close();
    }
  });
});

describe('vesting-info and proxy-info with useRcBlock=true, beside a relay chain that included a block', () => {
  // Recorded Polkadot history whose relay block RELAY_BLOCK is re-pointed to include the block where the schedules and
  // proxies were given (harness/relayChain.ts); sidecar cannot be pointed at it, so fastcar's answer is checked against its own reads.
  let beside: RelayBeside;
  let withRelay: Fastcar;

  beforeAll(async () => {
    beside = await startRelayBeside(devnet.wsUrl, chains[0]!.given);
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
    for (const path of [vesting(vested.address), vesting(vested.address, '?includeClaimable=true'), proxies(people.Bob), proxies(people.Ferdie)]) {
      const glue = path.includes('?') ? '&' : '?';
      const own = (await getJson(`${withRelay.url}${path}${glue}at=${beside.included.hash}`)).body as Record<string, unknown>;
      const list = await getJson(`${withRelay.url}${path}${glue}useRcBlock=true&at=${RELAY_BLOCK}`);
      expect({ path, status: list.status, body: list.body }).toEqual({ path, status: 200, body: [{ ...own, ...relayFields }] });
      expect(list.headers.get('cache-control')).toBe('no-store');
      const object = await getJson(`${withRelay.url}${path}${glue}useRcBlock=true&useRcBlockFormat=object&at=${rcBlock.hash}`);
      const wrapped = { rcBlock: { hash: rcBlock.hash, parentHash: rcBlock.header.parentHash, number: String(RELAY_BLOCK) }, parachainDataPerBlock: list.body };
      expect(object.body).toEqual(wrapped);
      const check = schemaCheck(path.includes('vesting') ? 'AccountVestingInfo' : 'AccountProxyInfo');
      for (const body of [list.body, object.body])
        expect({ path, valid: check(body), errors: check.errors ?? null }).toEqual({ path, valid: true, errors: null });
    }
    const vestingAnswer = (await getJson(`${withRelay.url}${vesting(vested.address, `?useRcBlock=true&at=${RELAY_BLOCK}`)}`)).body as { vesting: unknown[] }[];
    expect(vestingAnswer[0]!.vesting).toHaveLength(2);
  });
});
