// /accounts/{accountId}/convert and /accounts/compare against sidecar's final line,
// 20.14.1, pointed at the devnet's Westend relay chain: sidecar serves neither route on
// Asset Hub (convert is not mounted there, compare is not in its Asset Hub list), so its
// relay answers are the reference, for fastcar's own chain (the Asset Hub devnet) and
// under /rc (the same relay chain) alike: both routes compute without the node. Every
// answer sidecar gives correctly is the same, field for field; every 400 has its status
// and message; where sidecar fails (500s, wrong accounts) fastcar's answer is asserted,
// as docs/differences.md says. Sidecar's recorded convert answers are compared too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { u8aToHex } from '@polkadot/util';
import { base58Decode, blake2AsU8a, decodeAddress, encodeAddress, ethereumEncode } from '@polkadot/util-crypto';

import type { Devnet } from '../devnet/chain';
import { startRelayDevnet, type RelayDevnet } from '../devnet/relayChain';
import { startFastcarOn } from '../harness/fastcar';
import { getJson, getReferenceJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';

let devnet: Devnet;
let relay: RelayDevnet;
let sidecar: Peer;
let fastcar: Fastcar;

const ALICE = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';
const BOB = '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty';
const ALICE_KEY = u8aToHex(decodeAddress(ALICE));
/** A compressed secp256k1 public key (33 bytes): its account is its blake2-256 hash. */
const ECDSA_KEY = '0x02509540919faacf9ab52146c9aa40db68172d83777250b28e4679176e49ccdd9f';
const ETHEREUM = '0x8eaf04151687736326c9fea17e25fc5287613693';
const OTHER_ETHEREUM = '0x1234567890123456789012345678901234567890';
const ss58Hex = (address: string) => u8aToHex(base58Decode(address));
const FIXTURES = join(__dirname, 'fixtures', 'sidecar20');

beforeAll(async () => {
  [{ devnet }, relay] = await Promise.all([startDevnet(), startRelayDevnet({ port: 0 })]);
  [sidecar, fastcar] = await Promise.all([
    startSidecar(relay.wsUrl, '/runtime/spec', {}, 20),
    startFastcarOn(devnet.wsUrl, { FASTCAR_RELAY_URL: relay.wsUrl, FASTCAR_PREBUILD_BLOCKS: '0' }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close()]);
  await Promise.all([relay?.close(), devnet?.close()]);
});

/** fastcar's answers for `path`: on its own chain, on the relay chain, and under /v1. */
const oursAll = (path: string) => Promise.all(['', '/rc', '/v1'].map((mount) => getJson(`${fastcar.url}${mount}${path}`)));

async function both(path: string) {
  const [theirs, ours] = await Promise.all([getReferenceJson(sidecar.url + path), oursAll(path)]);
  return { theirs, ours };
}

/** The same status and body as sidecar, at no node call. */
async function compare(path: string): Promise<unknown> {
  const { theirs, ours } = await both(path);
  for (const answer of ours) {
    expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: theirs.status, body: theirs.body });
    // Byte for byte, field order included.
    if (answer.status === 200) expect(answer.text).toBe(theirs.text);
    expect([answer.headers.get('x-rpc-calls'), answer.headers.get('x-rpc-waves')]).toEqual(['0', '0']);
  }
  return ours[0].body;
}

/** A 400 from fastcar, without a stack, with sidecar's message unless said; sidecar's own status checked. */
async function compareError(path: string, sidecarStatus = 400, sameMessage = true): Promise<string> {
  const { theirs, ours } = await both(path);
  expect({ path, status: theirs.status }).toEqual({ path, status: sidecarStatus });
  for (const answer of ours) {
    expect({ path, status: answer.status }).toEqual({ path, status: 400 });
    const body = answer.body as { code: number; message: string; stack?: string };
    expect(body.code).toBe(400);
    expect(body.stack).toBeUndefined();
    expect(body.message).toBe((ours[0].body as { message: string }).message);
    if (sameMessage) expect({ path, message: body.message }).toEqual({ path, message: (theirs.body as { message: string }).message });
    expect(answer.headers.get('x-rpc-calls')).toBe('0');
  }
  return (ours[0].body as { message: string }).message;
}

describe('/accounts/{accountId}/convert', () => {
  const convert = (hex: string, query = '') => `/accounts/${hex}/convert${query}`;

  it("answers as sidecar 20's recorded answers on the relay devnet, on every chain and mount", async () => {
    const cases = JSON.parse(readFileSync(join(FIXTURES, 'cases.json'), 'utf8')) as Record<string, string>;
    for (const [file, path] of Object.entries(cases)) {
      const recorded = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { code?: number; message?: string };
      for (const answer of await oursAll(path)) {
        if (recorded.code === undefined) {
          expect({ file, status: answer.status, body: answer.body }).toEqual({ file, status: 200, body: recorded });
          expect(answer.text).toBe(JSON.stringify(recorded));
        } else {
          // Sidecar's 500 (a key of 5 bytes) is a 400 here, with its message.
          expect({ file, status: answer.status, message: (answer.body as { message: string }).message }).toEqual({
            file,
            status: 400,
            message: recorded.message,
          });
        }
      }
    }
  });

  it('converts keys and account ids of every scheme for the networks of several prefixes as sidecar 20', async () => {
    for (const prefix of ['0', '2', '5', '7', '42', '2007', '1e1', '0x2a', '', '-0', '%205']) {
      for (const scheme of ['sr25519', 'ed25519', 'ecdsa', '']) {
        for (const publicKey of ['', '&publicKey=true', '&publicKey=false'])
          await compare(convert(ALICE_KEY, `?prefix=${prefix}&scheme=${scheme}${publicKey}`));
      }
    }
    // An ECDSA public key names the account of its hash only when said to be one, and only under ecdsa.
    const hashed = (await compare(convert(ECDSA_KEY, '?scheme=ecdsa&publicKey=true&prefix=0'))) as { address: string };
    expect(hashed.address).toBe(encodeAddress(blake2AsU8a(decodeAddress(ECDSA_KEY)), 0));
    for (const query of ['?scheme=ecdsa', '?scheme=sr25519&publicKey=true', '?scheme=ed25519&publicKey=true', '?publicKey=true&prefix=2']) {
      const plain = (await compare(convert(ECDSA_KEY, query))) as { address: string };
      expect(decodeAddress(plain.address)).toEqual(decodeAddress(ECDSA_KEY));
    }
    // A 32-byte ECDSA "key" is taken as it is.
    expect(await compare(convert(ALICE_KEY, '?scheme=ecdsa&publicKey=true'))).toMatchObject({ address: ALICE });
  });

  it('takes ids of 1, 2, 4, 8, 32 and 33 bytes, echoes the hex as written, and ignores what it does not use', async () => {
    for (const hex of ['0x01', '0xffff', '0x12345678', '0x0102030405060708', ALICE_KEY.toUpperCase().replace('0X', '0x'), `0x${'ab'.repeat(33)}`]) {
      await compare(convert(hex, '?prefix=2'));
    }
    expect(await compare(convert(ALICE_KEY, '?foo=bar'))).toMatchObject({ address: ALICE, ss58Prefix: '42', network: 'substrate' });
    const ignored = await getJson(fastcar.url + convert(ALICE_KEY, '?foo=bar'));
    expect(ignored.headers.get('x-ignored-params')).toBe('foo');
  });

  it("refuses a bad scheme, prefix, publicKey or id with sidecar's 400 and message, in its order", async () => {
    for (const query of ['?scheme=foo', '?scheme=SR25519', '?scheme=sr25519&scheme=ecdsa', '?prefix=abc', '?prefix=-1', '?prefix=1.5', '?prefix=1&prefix=2']) {
      await compareError(convert(ALICE_KEY, query));
    }
    for (const query of ['?prefix=9999', '?prefix=16384', '?prefix=1e300', '?publicKey=1', '?publicKey=yes']) await compareError(convert(ALICE_KEY, query));
    for (const id of ['0x123', '0xzz', 'abc', ALICE, ss58Hex(ALICE).slice(2), `0x${'a'.repeat(4001)}`]) await compareError(convert(id));
    // publicKey first, then scheme, then prefix, then the id, then the prefix's network.
    expect(await compareError(convert('abc', '?publicKey=1&scheme=foo'))).toMatch(/^Query parameter: publicKey/);
    expect(await compareError(convert('abc', '?scheme=foo&prefix=x'))).toMatch(/^The `scheme`/);
    expect(await compareError(convert('abc', '?prefix=x'))).toMatch(/^The `prefix` query parameter provided is not a number/);
    expect(await compareError(convert('abc', '?prefix=9999'))).toMatch(/^The `accountId`/);
  });

  it("refuses ids of other lengths and the reserved prefixes with a 400, where sidecar 20 answers 500 with polkadot.js's message", async () => {
    for (const id of ['0x', '0x1234567890', ETHEREUM, `0x${'ab'.repeat(34)}`, `0x${'ab'.repeat(2000)}`]) {
      expect(await compareError(convert(id), 500)).toBe('Expected a valid key to convert, with length 1, 2, 4, 8, 32, 33');
    }
    for (const prefix of ['46', '47']) expect(await compareError(convert(ALICE_KEY, `?prefix=${prefix}`), 500)).toBe('Out of range ss58Format specified');
  });

  it('reads publicKey as every flag is read, where sidecar 20 takes TRUE as false and ignores an empty value', async () => {
    const { theirs, ours } = await both(convert(ECDSA_KEY, '?scheme=ecdsa&publicKey=TRUE'));
    expect(theirs.body).toMatchObject({ publicKey: false });
    for (const answer of ours) expect(answer.body).toEqual({ ...(theirs.body as object), publicKey: true, address: expect.any(String) });
    expect((ours[0].body as { address: string }).address).not.toBe((theirs.body as { address: string }).address);
    await compareError(convert(ALICE_KEY, '?publicKey='), 200, false);
    // useRcBlock: nothing here depends on a block; asked for one, fastcar says the route has none (sidecar ignores it).
    expect(await compareError(convert(ALICE_KEY, '?useRcBlock=true'), 200, false)).toBe('useRcBlock is not served on this route');
  });
});

describe('/accounts/compare', () => {
  const compared = (query: string) => `/accounts/compare${query}`;
  const list = (addresses: string[]) => compared(`?addresses=${addresses.join(',')}`);

  it('says whether addresses of several networks, and their hex, name the same account, as sidecar 20', async () => {
    const alices = [0, 2, 42, 5, 7].map((prefix) => encodeAddress(ALICE_KEY, prefix));
    const same = (await compare(list([...alices, ss58Hex(ALICE)]))) as { areEqual: boolean; addresses: Record<string, unknown>[] };
    expect(same.areEqual).toBe(true);
    expect(same.addresses[0]).toEqual({ ss58Format: alices[0], ss58Prefix: '0', network: 'polkadot', publicKey: ALICE_KEY });
    expect(await compare(list([ALICE, BOB]))).toMatchObject({ areEqual: false });
    expect(await compare(list([ALICE, ALICE, BOB]))).toMatchObject({ areEqual: false });
    // The parameter repeated, qs's brackets, and as many as sidecar takes.
    await compare(compared(`?addresses=${ALICE}&addresses=${alices[0]}`));
    await compare(compared(`?addresses[]=${ALICE}&addresses[]=${BOB}`));
    await compare(compared(`?addresses%5B%5D=${ALICE}&addresses%5B%5D=${alices[1]}`));
    expect(await compare(list(Array.from({ length: 30 }, (_, i) => encodeAddress(ALICE_KEY, i % 2 ? 42 : 0))))).toMatchObject({ areEqual: true });
  });

  it('compares Ethereum addresses as sidecar 20 shows them (no ss58 details), by their own bytes', async () => {
    const twice = (await compare(list([ETHEREUM, ETHEREUM]))) as { addresses: unknown[] };
    expect(twice).toMatchObject({ areEqual: true });
    expect(twice.addresses[0]).toEqual({ ss58Format: ETHEREUM, ss58Prefix: null, network: null, publicKey: null });
    expect(await compare(list([ETHEREUM, ALICE]))).toMatchObject({ areEqual: false });
    // Sidecar compares the missing details: any two Ethereum addresses are "equal" there.
    const { theirs, ours } = await both(list([ETHEREUM, OTHER_ETHEREUM]));
    expect(theirs.body).toMatchObject({ areEqual: true });
    for (const answer of ours) expect(answer.body).toEqual({ ...(theirs.body as object), areEqual: false });
    // The same address, checksummed or not.
    const checksummed = ethereumEncode(ETHEREUM);
    expect(checksummed).not.toBe(ETHEREUM);
    expect((await getJson(fastcar.url + list([ETHEREUM, checksummed]))).body).toMatchObject({ areEqual: true });
  });

  it('names the account an address encodes where sidecar 20 gets it wrong', async () => {
    // A two-byte prefix in hex: sidecar takes the account one byte early, and so finds them different.
    const twoByte = [encodeAddress(ALICE_KEY, 2007), ss58Hex(encodeAddress(ALICE_KEY, 2007))];
    const { theirs, ours } = await both(list(twoByte));
    expect(theirs.body).toMatchObject({ areEqual: false });
    for (const answer of ours) expect(answer.body).toMatchObject({ areEqual: true, addresses: [{ publicKey: ALICE_KEY }, { publicKey: ALICE_KEY }] });
    // A 33-byte key: sidecar cuts it to 32 bytes; a 1-byte index: sidecar answers 500.
    const key = encodeAddress(decodeAddress(ECDSA_KEY), 42);
    const cut = await both(list([key, encodeAddress(decodeAddress(ECDSA_KEY).slice(0, 32), 42)]));
    expect(cut.theirs.body).toMatchObject({ areEqual: true });
    expect(cut.ours[0].body).toMatchObject({ areEqual: false, addresses: [{ publicKey: ECDSA_KEY }, {}] });
    const index = await both(list([encodeAddress(new Uint8Array([5]), 42), encodeAddress(new Uint8Array([5]), 0)]));
    expect(index.theirs.status).toBe(500);
    expect(index.ours[0].body).toMatchObject({ areEqual: true, addresses: [{ publicKey: '0x05', network: 'substrate' }, { network: 'polkadot' }] });
  });

  it('refuses what sidecar 20 refuses, with its 400 and message', async () => {
    const badChecksum = `${ALICE.slice(0, -1)}Z`;
    for (const query of ['', '?foo=1', `?addresses=${ALICE},${BOB}&foo=1`, `?address=${ALICE},${BOB}`, `?addresses=${ALICE},${BOB}&useRcBlock=true`]) {
      expect(await compareError(compared(query))).toBe("Please use the query parameter key 'addresses' to provide the addresses values.");
    }
    for (const query of ['?addresses=', `?addresses=${ALICE}`, `?addresses[]=${ALICE},${BOB}`]) {
      expect(await compareError(compared(query))).toBe('At least two addresses are required for comparison.');
    }
    for (const bad of [badChecksum, '0GrwvaEF', 'abc', '', '0x', '0xzz', ALICE_KEY, '2'.repeat(300), `${'2'.repeat(300)}0`]) {
      expect(await compareError(list([ALICE, bad]))).toMatch(/^Invalid addresses: /);
    }
    expect(await compareError(list([ALICE, badChecksum]))).toBe('Invalid addresses: Invalid decoded address checksum');
    expect(await compareError(list(Array.from({ length: 31 }, () => ALICE)))).toBe('Please limit the amount of address parameters to 30.');
  });

  it('counts the addresses before reading any, where sidecar 20 reads them first', async () => {
    // 31 addresses, one malformed: sidecar names the malformed one; fastcar refuses the count before reading.
    const many = [...Array.from({ length: 30 }, () => ALICE), 'abc'];
    expect(await compareError(list(many), 400, false)).toBe('Please limit the amount of address parameters to 30.');
    // Thousands of them in one value, and a thousand repeated parameters: the same 400, at once.
    expect(await compareError(compared(`?addresses=${',x'.repeat(5000)}`), 400, false)).toBe('Please limit the amount of address parameters to 30.');
    const repeated = await getJson(`${fastcar.url}${compared(`?${'addresses=x&'.repeat(1000)}`)}`);
    expect([repeated.status, (repeated.body as { message: string }).message]).toEqual([400, 'Please limit the amount of address parameters to 30.']);
  });

  it('is not taken for an account by the /accounts/{accountId}/... routes, nor they for it', async () => {
    expect((await getJson(`${fastcar.url}/accounts/compare/validate`)).body).toEqual({ isValid: false, ss58Prefix: null, network: null, accountId: null });
    const convert = await getJson(`${fastcar.url}/accounts/compare/convert`);
    expect([convert.status, (convert.body as { message: string }).message]).toEqual([400, 'The `accountId` parameter provided is not a valid hex value.']);
    const answer = await getJson(`${fastcar.url}${list([ALICE, BOB])}`);
    expect([answer.status, answer.headers.get('x-rpc-calls'), answer.headers.get('x-rpc-waves')]).toEqual([200, '0', '0']);
  });
});
