// The extrinsic index's window: found by hash, the lowest height first, holes
// refused, blocks dropped from the bottom with every trace of their hashes, hashes
// that share the short key kept apart; and what an entry costs in memory.
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { ExtrinsicWindow, HASH_BYTES } from '../../src/cache/extrinsicWindow';

const hashes = (...list: Buffer[]) => Buffer.concat(list);
const hashWith = (prefix: string) => Buffer.concat([Buffer.from(prefix, 'hex'), randomBytes(HASH_BYTES - prefix.length / 2)]);

it('finds each hash at its height and index, and nothing else', () => {
  const window = new ExtrinsicWindow();
  const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)];
  window.add(10, hashes(a, b));
  window.add(11, hashes());
  window.add(9, hashes(c));
  expect([window.low, window.high, window.size, window.entries]).toEqual([9, 11, 3, 3]);
  expect(window.find(a)).toEqual({ height: 10, index: 0 });
  expect(window.find(b)).toEqual({ height: 10, index: 1 });
  expect(window.find(c)).toEqual({ height: 9, index: 0 });
  expect(window.find(randomBytes(32))).toBeUndefined();
});

it('refuses a block that would leave a hole, and hash lists that are not whole hashes', () => {
  const window = new ExtrinsicWindow();
  window.add(5, hashes(randomBytes(32)));
  expect(() => window.add(7, hashes())).toThrow('not next to the window 5-5');
  expect(() => window.add(6, Buffer.alloc(31))).toThrow('not a whole number of hashes');
});

it('keeps hashes that share their first 30 bits apart, and drops the lowest block completely', () => {
  const window = new ExtrinsicWindow();
  // The same first four bytes but for the two lowest bits: one short key, three hashes.
  const [x, y, z] = [hashWith('12345670'), hashWith('12345671'), hashWith('12345673')];
  window.add(1, hashes(x));
  window.add(2, hashes(randomBytes(32), y));
  window.add(3, hashes(z, x)); // x again: the lowest height is the answer
  expect(window.find(x)).toEqual({ height: 1, index: 0 });
  expect(window.find(y)).toEqual({ height: 2, index: 1 });
  expect(window.find(z)).toEqual({ height: 3, index: 0 });
  window.dropLowest();
  expect(window.find(x)).toEqual({ height: 3, index: 1 });
  expect([window.low, window.high, window.entries]).toEqual([2, 3, 4]);
  window.dropLowest();
  window.dropLowest();
  expect([window.low, window.high, window.size, window.entries]).toEqual([-1, -1, 0, 0]);
  for (const hash of [x, y, z]) expect(window.find(hash)).toBeUndefined();
  window.add(40, hashes(y));
  expect(window.find(y)).toEqual({ height: 40, index: 0 });
});

it('holds a day of busy blocks in a few tens of bytes per extrinsic', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const used = () => {
    gc();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const blocks = 14_400;
  const perBlock = 10;
  const lists = Array.from({ length: blocks }, () => randomBytes(perBlock * HASH_BYTES));
  const before = used();
  const window = new ExtrinsicWindow();
  for (const [height, list] of lists.entries()) window.add(height, list);
  const perEntry = (used() - before) / window.entries;
  // The hashes themselves were allocated before; what the window adds is its map and per-block entries.
  console.log(`extrinsic window: ${window.entries} hashes in ${blocks} blocks, ${perEntry.toFixed(1)} bytes per entry beyond the 32 of its hash`);
  expect(window.entries).toBe(blocks * perBlock);
  expect(perEntry).toBeLessThan(100);
});
