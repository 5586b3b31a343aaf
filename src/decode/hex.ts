// Hex <-> bytes on the hot path. Node's Buffer does both natively; the
// general-purpose helpers of @polkadot/util walk the string in JavaScript,
// which for a big block's extrinsics and events cost more than decoding them.

/** The bytes of a 0x-prefixed hex string (an odd or invalid digit ends the bytes, as Buffer reads). */
export function bytesOfHex(hex: string): Uint8Array {
  return Buffer.from(hex.startsWith('0x') ? hex.slice(2) : hex, 'hex');
}

/** 0x-prefixed lowercase hex of `bytes`. */
export function hexOfBytes(bytes: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}
