// Large answers are gzipped in slices compressed at once; whatever the slicing,
// a client must see one ordinary gzip member holding exactly the answer.
import { randomBytes } from 'node:crypto';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';

import { gzipSliced, slicesFor } from '../../src/http/slicedGzip';

/** JSON much like a block answer: repetitive keys, varied values. */
function answerLike(bytes: number): Buffer {
  const items: string[] = [];
  let length = 2;
  for (let i = 0; length < bytes; i++) {
    const item = JSON.stringify({ method: { pallet: 'system', method: 'remarkWithEvent' }, nonce: String(i), hash: `0x${randomBytes(32).toString('hex')}` });
    items.push(item);
    length += item.length + 1;
  }
  return Buffer.from(`[${items.join(',')}]`).subarray(0, bytes);
}

/** The deflate stream between gzip's header and trailer, read as one: it must end exactly before the trailer. */
function readSingleMember(gzipped: Buffer): Buffer {
  expect([...gzipped.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
  const deflated = gzipped.subarray(10, gzipped.length - 8);
  const { buffer, engine } = inflateRawSync(deflated, { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  expect(engine.bytesWritten).toBe(deflated.length);
  const trailer = gzipped.subarray(gzipped.length - 8);
  expect(trailer.readUInt32LE(0)).toBe(crc32(buffer) >>> 0);
  expect(trailer.readUInt32LE(4)).toBe(buffer.length);
  return buffer;
}

describe('sliced gzip', () => {
  it.each([0, 1, 1000, 128 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 700_001, 3_000_000])('holds exactly a %i-byte answer in one member', async (bytes) => {
    const body = answerLike(bytes);
    const gzipped = await gzipSliced(body, 1);
    expect(gunzipSync(gzipped).equals(body)).toBe(true);
    expect(readSingleMember(gzipped).equals(body)).toBe(true);
  });

  it('holds incompressible bytes as well', async () => {
    const body = randomBytes(600_000);
    expect(readSingleMember(await gzipSliced(body, 5)).equals(body)).toBe(true);
  });

  it('slices a big answer and leaves a small one whole', () => {
    expect(slicesFor(100_000)).toBe(1);
    expect(slicesFor(700_000)).toBeGreaterThan(1);
    expect(slicesFor(700_000)).toBeLessThanOrEqual(4);
  });
});
