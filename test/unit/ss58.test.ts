// Addresses are remembered by a number drawn from the account's bytes: whatever
// collides on that number, each account must still get its own address.
import { encodeAddress } from '@polkadot/util-crypto';

import { ss58, ss58At, ss58Memory } from '../../src/decode/ss58';

function account(fill: number, head?: number[]): Buffer {
  const bytes = Buffer.alloc(32, fill);
  head?.forEach((value, i) => {
    bytes[i] = value;
  });
  return bytes;
}

describe('ss58 addresses', () => {
  it('are what encodeAddress gives, for every prefix asked', () => {
    for (const prefix of [0, 2, 42]) {
      for (let fill = 0; fill < 20; fill++) expect(ss58(account(fill), prefix)).toBe(encodeAddress(account(fill), prefix));
    }
  });

  it('stay right for accounts whose first eight bytes are the same', () => {
    const head = [1, 2, 3, 4, 5, 6, 7, 8];
    const a = account(0xaa, head);
    const b = account(0xbb, head);
    for (let round = 0; round < 3; round++) {
      expect(ss58(a, 0)).toBe(encodeAddress(a, 0));
      expect(ss58(b, 0)).toBe(encodeAddress(b, 0));
    }
  });

  it('read an account inside a larger buffer, and one shorter than a full key', () => {
    const block = Buffer.concat([Buffer.from([9, 9, 9]), account(7), Buffer.from([1])]);
    expect(ss58At(block, 3, 32, 42)).toBe(encodeAddress(account(7), 42));
    const short = Buffer.from([1, 2, 3, 4]);
    expect(ss58At(short, 0, 4, 42)).toBe(encodeAddress(short, 42));
  });

  it('keep a bounded memory: past the limit it starts again, and early accounts are still right', () => {
    const limit = ss58Memory.max;
    ss58Memory.max = 100;
    try {
      const first = account(1, [0xde, 0xad]);
      expect(ss58(first, 42)).toBe(encodeAddress(first, 42));
      for (let i = 0; i < 250; i++) {
        const bytes = Buffer.alloc(32);
        bytes.writeUInt32LE(i, 0);
        bytes.writeUInt32LE(i * 7, 4);
        ss58(bytes, 42);
        expect(ss58Memory.size()).toBeLessThanOrEqual(100);
      }
      expect(ss58(first, 42)).toBe(encodeAddress(first, 42));
    } finally {
      ss58Memory.max = limit;
    }
  });
});
