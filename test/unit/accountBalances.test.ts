// The pure parts of the accounts family: amounts in whole tokens, what an account can
// transfer, and addresses read as sidecar reads them.
import { u8aToHex } from '@polkadot/util';
import { base58Decode, decodeAddress, encodeAddress } from '@polkadot/util-crypto';

import { parseAddress } from '../../src/services/accounts/addresses';
import { transferable } from '../../src/services/accounts/accountBalances';
import { denominate } from '../../src/services/accounts/denomination';
import { validateAddress } from '../../src/services/accounts/validate';

const ALICE = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';
const U128_MAX = (1n << 128n) - 1n;

describe('denominate', () => {
  it('puts the point `decimals` digits from the right, with no leading zero, as sidecar writes it', () => {
    expect(denominate('994975008363754533', 12)).toBe('994975.008363754533');
    expect(denominate('140163000000', 12)).toBe('.140163000000');
    expect(denominate('5', 12)).toBe('.000000000005');
    expect(denominate('1000000000000', 12)).toBe('1.000000000000');
  });

  it('leaves zero, and amounts of a token without decimals, alone; an unknown token gets the point before every digit', () => {
    expect(denominate('0', 12)).toBe('0');
    expect(denominate('123', 0)).toBe('123');
    expect(denominate('123', undefined)).toBe('.123');
  });
});

describe('transferable', () => {
  const ED = 1_000_000_000n;

  it('is all of free when nothing is frozen or reserved', () => {
    expect(transferable({ free: 5n * ED, reserved: 0n, frozen: 0n }, [], ED)).toBe(5n * ED);
  });

  it('keeps the existential deposit back once anything is reserved, or the frozen part beyond the reserved', () => {
    expect(transferable({ free: 5n * ED, reserved: 1n, frozen: 0n }, [], ED)).toBe(4n * ED);
    expect(transferable({ free: 5n * ED, reserved: ED, frozen: 3n * ED }, [], ED)).toBe(3n * ED);
  });

  it('is never below zero, and zero under a lock of every unit', () => {
    expect(transferable({ free: ED, reserved: 0n, frozen: 3n * ED }, [], ED)).toBe(0n);
    expect(transferable({ free: 5n * ED, reserved: 0n, frozen: 0n }, [7n, U128_MAX], ED)).toBe(0n);
  });
});

describe('parseAddress', () => {
  const key = decodeAddress(ALICE);

  it("reads ss58 of any prefix, and an ss58 address's hex, to the account it names", () => {
    for (const prefix of [0, 2, 42, 63, 64, 2007, 16383]) {
      const address = encodeAddress(key, prefix);
      expect(parseAddress(address)).toEqual({ kind: 'ss58', prefix, account: key });
      expect(parseAddress(u8aToHex(base58Decode(address)))).toEqual({ kind: 'ss58', prefix, account: key });
    }
  });

  it('names what is wrong as sidecar does', () => {
    expect(parseAddress(`${ALICE.slice(0, -1)}Z`)).toEqual({ kind: 'invalid', reason: 'Invalid decoded address checksum' });
    expect(parseAddress('0GrwvaEF')).toEqual({ kind: 'invalid', reason: 'Invalid base58 character "0" (0x30) at index 0' });
    expect(parseAddress(u8aToHex(key))).toEqual({ kind: 'invalid', reason: 'Invalid address format' });
    expect(parseAddress('')).toMatchObject({ kind: 'invalid' });
    expect(parseAddress('0x8eaf04151687736326c9fea17e25fc5287613693')).toMatchObject({ kind: 'ethereum' });
  });

  it('checks a long text for bad characters without decoding it', () => {
    const started = performance.now();
    expect(parseAddress('2'.repeat(20_000))).toEqual({ kind: 'invalid', reason: 'Invalid address format' });
    expect(parseAddress(`${'2'.repeat(20_000)}0`)).toEqual({ kind: 'invalid', reason: 'Invalid base58 character "0" (0x30) at index 20000' });
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('validateAddress', () => {
  it("answers sidecar's shape, prefixes as strings", () => {
    expect(validateAddress(ALICE)).toEqual({ isValid: true, ss58Prefix: '42', network: 'substrate', accountId: u8aToHex(decodeAddress(ALICE)) });
    expect(validateAddress('nonsense')).toEqual({ isValid: false, ss58Prefix: null, network: null, accountId: null });
  });
});
