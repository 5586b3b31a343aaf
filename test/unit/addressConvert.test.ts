// Writing keys as addresses (convert) and comparing addresses (compare), without a
// server: sidecar 20's recorded convert answers come out of the same reading of the
// same query, and each conversion is checked against what a keyring derives.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseQuery } from 'node:querystring';
import { Keyring } from '@polkadot/keyring';
import { u8aToHex } from '@polkadot/util';
import { blake2AsU8a, cryptoWaitReady, decodeAddress, encodeAddress } from '@polkadot/util-crypto';

import { parsePrefix, parseScheme, readComparedAddresses } from '../../src/controllers/accounts/addressQuery';
import { ApiError } from '../../src/errors';
import { compareAddresses } from '../../src/services/accounts/compare';
import { convertAccount } from '../../src/services/accounts/convert';

const FIXTURES = join(__dirname, '..', 'fixtures', 'sidecar20');
const ALICE = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';
const ALICE_KEY = u8aToHex(decodeAddress(ALICE));

/** What the route answers for a path: the answer, or its 400's message. */
function convertPath(path: string): unknown {
  const [, accountId, query] = /^\/accounts\/([^/]+)\/convert\??(.*)$/.exec(path)!;
  const params = parseQuery(query);
  const flag = params.publicKey;
  try {
    if (flag !== undefined && flag !== 'true' && flag !== 'false')
      throw new ApiError(400, `Query parameter: publicKey has an invalid boolean value of ${flag}`);
    return convertAccount(accountId, { scheme: parseScheme(params.scheme), prefix: parsePrefix(params.prefix), publicKey: flag === 'true' });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, message: error.message };
  }
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ApiError ? [error.status, error.message] : error;
  }
  return 'answered';
};

beforeAll(() => cryptoWaitReady());

describe('convert', () => {
  it('answers what sidecar 20 recorded on the relay devnet, its 500 a 400 with the same message', () => {
    const cases = JSON.parse(readFileSync(join(FIXTURES, 'cases.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(cases)).toHaveLength(13);
    for (const [file, path] of Object.entries(cases)) {
      const recorded = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { code?: number; message?: string };
      const ours = convertPath(path);
      if (recorded.code === undefined) expect({ file, text: JSON.stringify(ours) }).toEqual({ file, text: JSON.stringify(recorded) });
      else expect({ file, ours }).toEqual({ file, ours: { status: 400, message: recorded.message } });
    }
  });

  it('writes an account for the networks of several prefixes, one- and two-byte ones', () => {
    const networks: [number, string][] = [
      [0, 'polkadot'],
      [2, 'kusama'],
      [42, 'substrate'],
      [5, 'astar'],
      [2007, 'kapex'],
    ];
    for (const [prefix, network] of networks) {
      const answer = convertAccount(ALICE_KEY, { scheme: 'sr25519', prefix, publicKey: false });
      expect(answer).toEqual({
        ss58Prefix: String(prefix),
        network,
        address: encodeAddress(ALICE_KEY, prefix),
        accountId: ALICE_KEY,
        scheme: 'sr25519',
        publicKey: false,
      });
    }
    expect(convertAccount(ALICE_KEY, { scheme: 'sr25519', prefix: 0, publicKey: false }).address).toBe('15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5');
    expect(convertAccount(ALICE_KEY, { scheme: 'sr25519', prefix: 2, publicKey: false }).address).toBe('HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F');
  });

  it("derives an ECDSA key's account as a keyring does, only when told the hex is a public key", () => {
    const pair = new Keyring({ type: 'ecdsa', ss58Format: 0 }).addFromUri('//Alice');
    const key = u8aToHex(pair.publicKey);
    expect(pair.publicKey).toHaveLength(33);
    const derived = convertAccount(key, { scheme: 'ecdsa', prefix: 0, publicKey: true });
    expect(derived.address).toBe(pair.address);
    expect(decodeAddress(derived.address)).toEqual(blake2AsU8a(pair.publicKey, 256));
    // Not said to be a key, or under another scheme: the 33 bytes themselves.
    for (const request of [
      { scheme: 'ecdsa', publicKey: false },
      { scheme: 'sr25519', publicKey: true },
      { scheme: 'ed25519', publicKey: true },
    ] as const) {
      expect(decodeAddress(convertAccount(key, { ...request, prefix: 0 }).address)).toEqual(pair.publicKey);
    }
    // sr25519 and ed25519 keys are their accounts.
    for (const type of ['sr25519', 'ed25519'] as const) {
      const other = new Keyring({ type, ss58Format: 42 }).addFromUri('//Bob');
      expect(convertAccount(u8aToHex(other.publicKey), { scheme: type, prefix: 42, publicKey: true }).address).toBe(other.address);
    }
  });

  it('refuses, with a 400, what it cannot write, without decoding a long hex', () => {
    const request = { scheme: 'sr25519', prefix: 42, publicKey: false } as const;
    const lengths = [400, 'Expected a valid key to convert, with length 1, 2, 4, 8, 32, 33'];
    for (const id of ['0x', '0x1234567890', `0x${'00'.repeat(20)}`, `0x${'00'.repeat(34)}`, `0x${'ab'.repeat(100_000)}`]) {
      expect(refusal(() => convertAccount(id, request))).toEqual(lengths);
    }
    expect(refusal(() => convertAccount('0x123', request))).toEqual([400, 'The `accountId` parameter provided is not a valid hex value.']);
    expect(refusal(() => convertAccount(ALICE, request))).toEqual([400, 'The `accountId` parameter provided is not a valid hex value.']);
    const noNetwork = [400, 'The given `prefix` query parameter does not correspond to an existing network.'];
    for (const prefix of [9999, 16384, 1e300]) expect(refusal(() => convertAccount(ALICE_KEY, { ...request, prefix }))).toEqual(noNetwork);
    for (const prefix of [46, 47]) expect(refusal(() => convertAccount(ALICE_KEY, { ...request, prefix }))).toEqual([400, 'Out of range ss58Format specified']);
  });

  it("reads scheme and prefix as sidecar: its defaults for absent and empty values, JavaScript's numbers", () => {
    expect([parseScheme(undefined), parseScheme(''), parseScheme('ecdsa')]).toEqual(['sr25519', 'sr25519', 'ecdsa']);
    for (const bad of ['SR25519', 'foo', ['sr25519', 'ecdsa']]) expect(refusal(() => parseScheme(bad))).toEqual([400, expect.stringContaining('`scheme`')]);
    expect(['1e1', '0x2a', ' 5 ', '-0', '', undefined, '0b11'].map(parsePrefix)).toEqual([10, 42, 5, 0, 42, 42, 3]);
    expect(Object.is(parsePrefix('-0'), 0)).toBe(true);
    for (const bad of ['abc', '-1', '1.5', 'Infinity', ['1', '2']]) {
      expect(refusal(() => parsePrefix(bad))).toEqual([400, 'The `prefix` query parameter provided is not a number.']);
    }
  });
});

describe('compare', () => {
  const bob = '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty';

  it('says whether addresses encode the same bytes, and what each encodes', () => {
    const polkadot = encodeAddress(ALICE_KEY, 0);
    expect(compareAddresses([ALICE, polkadot])).toEqual({
      areEqual: true,
      addresses: [
        { ss58Format: ALICE, ss58Prefix: '42', network: 'substrate', publicKey: ALICE_KEY },
        { ss58Format: polkadot, ss58Prefix: '0', network: 'polkadot', publicKey: ALICE_KEY },
      ],
    });
    expect(compareAddresses([ALICE, polkadot, bob]).areEqual).toBe(false);
    const ethereum = ['0x8eaf04151687736326c9fea17e25fc5287613693', '0x1234567890123456789012345678901234567890'];
    expect(compareAddresses([ethereum[0], ethereum[0]])).toMatchObject({ areEqual: true, addresses: [{ ss58Prefix: null, publicKey: null }, {}] });
    expect(compareAddresses(ethereum).areEqual).toBe(false);
    expect(refusal(() => compareAddresses([ALICE, `${ALICE.slice(0, -1)}Z`]))).toEqual([400, 'Invalid addresses: Invalid decoded address checksum']);
  });

  it("reads the addresses as sidecar's parser does, counted before any is read", () => {
    expect(readComparedAddresses(parseQuery('addresses=a,b,c'))).toEqual(['a', 'b', 'c']);
    expect(readComparedAddresses(parseQuery('addresses=a,b&addresses=c'))).toEqual(['a,b', 'c']);
    expect(readComparedAddresses(parseQuery('addresses[]=a&addresses[]=b'))).toEqual(['a', 'b']);
    const keyMessage = [400, "Please use the query parameter key 'addresses' to provide the addresses values."];
    for (const query of ['', 'foo=1', 'addresses=a,b&at=1', 'addresses[0]=a&addresses[1]=b'])
      expect(refusal(() => readComparedAddresses(parseQuery(query)))).toEqual(keyMessage);
    for (const query of ['addresses=', 'addresses=a', 'addresses[]=a,b']) {
      expect(refusal(() => readComparedAddresses(parseQuery(query)))).toEqual([400, 'At least two addresses are required for comparison.']);
    }
    const limit = [400, 'Please limit the amount of address parameters to 30.'];
    expect(readComparedAddresses(parseQuery(`addresses=${'a,'.repeat(29)}a`))).toHaveLength(30);
    expect(refusal(() => readComparedAddresses(parseQuery(`addresses=${'a,'.repeat(30)}a`)))).toEqual(limit);
    expect(refusal(() => readComparedAddresses(parseQuery(`addresses=${',x'.repeat(1_000_000)}`)))).toEqual(limit);
  });
});
