// Extrinsic hashes of a contiguous window of blocks, found by hash. Each block's
// hashes are kept as one buffer of 32-byte hashes (their order is the extrinsic
// index); a map from a hash's first 30 bits (a small integer, stored unboxed) to
// the heights holding such a hash finds the block, and the block's buffer gives
// the exact index. No strings per entry: about 32 bytes of hash plus a map entry
// (test/unit/extrinsicWindow.test.ts prints the measured bytes per entry).
export interface ExtrinsicPlace {
  height: number;
  index: number;
}

export const HASH_BYTES = 32;

/** A hash's first 30 bits: fits a V8 small integer, so the map stores no boxed number. */
function shortKey(hashes: Buffer, offset: number): number {
  return hashes.readUInt32BE(offset) >>> 2;
}

export class ExtrinsicWindow {
  /** Short key -> the height holding such a hash, or the heights when several do (rare). */
  private readonly byKey = new Map<number, number | number[]>();
  private readonly blocks = new Map<number, Buffer>();
  private lowest = -1;
  private highest = -1;
  private count = 0;

  /** The lowest height held (-1: none). */
  get low(): number {
    return this.lowest;
  }

  /** The highest height held (-1: none). */
  get high(): number {
    return this.highest;
  }

  /** Blocks held. */
  get size(): number {
    return this.blocks.size;
  }

  /** Extrinsic hashes held. */
  get entries(): number {
    return this.count;
  }

  has(height: number): boolean {
    return this.blocks.has(height);
  }

  /** A block's extrinsic hashes, 32 bytes each in index order. */
  hashesAt(height: number): Buffer | undefined {
    return this.blocks.get(height);
  }

  /** Adds a block next to the window (one above or one below it), so the window stays without holes. */
  add(height: number, hashes: Buffer): void {
    if (hashes.length % HASH_BYTES !== 0) throw new Error(`block ${height}: ${hashes.length} bytes of hashes is not a whole number of hashes`);
    if (this.blocks.size > 0 && height !== this.highest + 1 && height !== this.lowest - 1) {
      throw new Error(`block ${height} is not next to the window ${this.lowest}-${this.highest}`);
    }
    this.blocks.set(height, hashes);
    if (this.blocks.size === 1) this.lowest = this.highest = height;
    else if (height > this.highest) this.highest = height;
    else this.lowest = height;
    for (let offset = 0; offset < hashes.length; offset += HASH_BYTES) {
      const key = shortKey(hashes, offset);
      const held = this.byKey.get(key);
      if (held === undefined) this.byKey.set(key, height);
      else if (typeof held === 'number') {
        if (held !== height) this.byKey.set(key, [held, height]);
      } else if (!held.includes(height)) held.push(height);
    }
    this.count += hashes.length / HASH_BYTES;
  }

  /** Drops the lowest block. */
  dropLowest(): void {
    const height = this.lowest;
    const hashes = this.blocks.get(height);
    if (!hashes) return;
    this.blocks.delete(height);
    for (let offset = 0; offset < hashes.length; offset += HASH_BYTES) {
      const key = shortKey(hashes, offset);
      const held = this.byKey.get(key);
      if (held === height) this.byKey.delete(key);
      else if (Array.isArray(held)) {
        const rest = held.filter((h) => h !== height);
        this.byKey.set(key, rest.length === 1 ? rest[0] : rest);
      }
    }
    this.count -= hashes.length / HASH_BYTES;
    if (this.blocks.size === 0) this.lowest = this.highest = -1;
    else this.lowest = height + 1;
  }

  /** Where `hash` (32 bytes) is: the lowest height holding it and its index there. */
  find(hash: Buffer): ExtrinsicPlace | undefined {
    const held = this.byKey.get(shortKey(hash, 0));
    if (held === undefined) return undefined;
    const heights = typeof held === 'number' ? [held] : [...held].sort((a, b) => a - b);
    for (const height of heights) {
      const index = indexIn(this.blocks.get(height), hash);
      if (index >= 0) return { height, index };
    }
    return undefined;
  }
}

/** The index of `hash` among a block's hashes, or -1. */
export function indexIn(hashes: Buffer | undefined, hash: Buffer): number {
  if (!hashes) return -1;
  for (let offset = 0; offset < hashes.length; offset += HASH_BYTES) {
    if (hashes.compare(hash, 0, HASH_BYTES, offset, offset + HASH_BYTES) === 0) return offset / HASH_BYTES;
  }
  return -1;
}
