// A cursor over SCALE bytes that reads straight into the JSON sidecar prints:
// integers as decimal strings, byte runs as 0x-hex. No intermediate objects,
// and numbers stay JS numbers until they no longer fit in 53 bits.

/** Thrown when the bytes end before the value does, or hold what SCALE does not allow. */
export class DecodeError extends Error {}

export class ByteReader {
  readonly bytes: Uint8Array;
  /** The same memory as a Buffer: its hex, utf8 and latin1 conversions are native. */
  readonly buffer: Buffer;
  pos: number;

  constructor(bytes: Uint8Array, pos = 0) {
    this.bytes = bytes;
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = pos;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** Moves past `length` bytes and returns where they started. */
  take(length: number): number {
    const start = this.pos;
    if (length < 0 || start + length > this.bytes.length) throw new DecodeError(`needs ${length} bytes at ${start}, has ${this.bytes.length - start}`);
    this.pos = start + length;
    return start;
  }

  u8(): number {
    return this.bytes[this.take(1)];
  }

  u16(): number {
    const at = this.take(2);
    return this.bytes[at] | (this.bytes[at + 1] << 8);
  }

  u32(): number {
    const at = this.take(4);
    return this.buffer.readUInt32LE(at);
  }

  /** An unsigned little-endian integer of `length` bytes, as a decimal string. */
  uintString(length: number): string {
    if (length <= 4) {
      const at = this.take(length);
      let value = 0;
      for (let i = length - 1; i >= 0; i--) value = value * 256 + this.bytes[at + i];
      return String(value);
    }
    const at = this.take(length);
    return uintAt(this.buffer, at, length);
  }

  /** A signed (two's complement) little-endian integer of `length` bytes, as a decimal string. */
  intString(length: number): string {
    const at = this.take(length);
    let value = 0n;
    for (let i = length - 1; i >= 0; i--) value = (value << 8n) | BigInt(this.bytes[at + i]);
    return BigInt.asIntN(length * 8, value).toString();
  }

  /** A SCALE compact integer as a JS number; throws past 2^53 (lengths and indices never get there). */
  compactNumber(): number {
    const first = this.bytes[this.pos];
    switch (first & 3) {
      case 0:
        this.take(1);
        return first >>> 2;
      case 1:
        return this.u16() >>> 2;
      case 2:
        return this.u32() >>> 2;
      default: {
        const length = (first >>> 2) + 4;
        this.take(1);
        const at = this.take(length);
        if (length > 6) throw new DecodeError(`compact of ${length} bytes used as a length`);
        let value = 0;
        for (let i = length - 1; i >= 0; i--) value = value * 256 + this.bytes[at + i];
        return value;
      }
    }
  }

  /** A SCALE compact integer as a decimal string. */
  compactString(): string {
    const first = this.bytes[this.pos];
    if (first === undefined) throw new DecodeError('compact past the end');
    switch (first & 3) {
      case 0:
        this.take(1);
        return String(first >>> 2);
      case 1:
        return String(this.u16() >>> 2);
      case 2:
        return String(this.u32() >>> 2);
      default: {
        const length = (first >>> 2) + 4;
        this.take(1);
        return uintAt(this.buffer, this.take(length), length);
      }
    }
  }

  /** `length` bytes as 0x-prefixed lowercase hex. */
  hex(length: number): string {
    const at = this.take(length);
    return `0x${this.buffer.toString('hex', at, at + length)}`;
  }

  /** `length` bytes as a view (no copy). */
  slice(length: number): Uint8Array {
    const at = this.take(length);
    return this.bytes.subarray(at, at + length);
  }
}

/** An unsigned little-endian integer of any width at `at`, as a decimal string. */
function uintAt(buffer: Buffer, at: number, length: number): string {
  // Up to 7 bytes are exact in a double; most balances and weights are far smaller than their type.
  let top = length;
  while (top > 0 && buffer[at + top - 1] === 0) top--;
  if (top <= 6) {
    let value = 0;
    for (let i = top - 1; i >= 0; i--) value = value * 256 + buffer[at + i];
    return String(value);
  }
  let value = 0n;
  let i = top;
  for (; i >= 4; i -= 4) value = (value << 32n) | BigInt(buffer.readUInt32LE(at + i - 4));
  for (; i > 0; i--) value = (value << 8n) | BigInt(buffer[at + i - 1]);
  return value.toString();
}
