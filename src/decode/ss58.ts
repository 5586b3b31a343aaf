// An ss58 address costs a blake2 checksum and a base58 encoding, and a block
// names the same accounts again and again (signers, transfers, fee events):
// addresses are remembered by network prefix and account bytes.
import { encodeAddress } from '@polkadot/util-crypto';
import { LRUCache } from 'lru-cache';

const addresses = new LRUCache<string, string>({ max: 50_000 });

/** The address of `bytes[start, start + length)` under `prefix`. */
export function ss58At(buffer: Buffer, start: number, length: number, prefix: number): string {
  const key = `${prefix}:${buffer.toString('latin1', start, start + length)}`;
  let address = addresses.get(key);
  if (address === undefined) {
    address = encodeAddress(buffer.subarray(start, start + length), prefix);
    addresses.set(key, address);
  }
  return address;
}

/** The address of `bytes` under `prefix`. */
export function ss58(bytes: Uint8Array, prefix: number): string {
  return ss58At(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, bytes.byteLength, prefix);
}
