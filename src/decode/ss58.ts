// An ss58 address costs a blake2 checksum and a base58 encoding, and a block
// names the same accounts again and again (signers, transfers, fee events):
// addresses are remembered by network prefix and account bytes.
//
// The lookup is on the hot path of every event and call that names an account,
// so it makes no key string: a number drawn from the bytes finds the entry, and
// the entry's own bytes are compared in full, so a collision (chosen or not)
// only costs an encoding, never a wrong address.
import { encodeAddress } from '@polkadot/util-crypto';

interface Remembered {
  bytes: Buffer;
  prefix: number;
  address: string;
}

const remembered = new Map<number, Remembered>();

/** Entries kept at most (past it the memory starts again; a block names far fewer), and how many there are. */
export const ss58Memory = { max: 50_000, size: () => remembered.size };

function lookup(buffer: Buffer, start: number, length: number, prefix: number): Remembered {
  // Account bytes are hashes or keys: any of their bits spread well enough to find an entry.
  const key = length >= 8 ? (buffer.readUInt32LE(start) ^ (buffer.readUInt32LE(start + 4) << 3) ^ prefix) & 0x3fffffff : -1;
  const known = key === -1 ? undefined : remembered.get(key);
  if (known && known.prefix === prefix && known.bytes.length === length && sameBytes(known.bytes, buffer, start)) return known;
  const bytes = Buffer.from(buffer.subarray(start, start + length));
  const address = encodeAddress(bytes, prefix);
  const entry = { bytes, prefix, address };
  if (key !== -1) {
    if (remembered.size >= ss58Memory.max) remembered.clear();
    remembered.set(key, entry);
  }
  return entry;
}

function sameBytes(known: Buffer, buffer: Buffer, start: number): boolean {
  for (let i = 0; i < known.length; i++) if (known[i] !== buffer[start + i]) return false;
  return true;
}

/** The address of `bytes[start, start + length)` under `prefix`. */
export function ss58At(buffer: Buffer, start: number, length: number, prefix: number): string {
  return lookup(buffer, start, length, prefix).address;
}

/** The address format a chain's registry names (its `ss58Format` property), else the generic one. */
export function ss58PrefixOf(registry: { chainSS58?: number; getChainProperties(): object | undefined }): number {
  // polkadot.js works it out of the chain properties on every read: once per properties object here.
  const properties = registry.getChainProperties();
  if (!properties) return GENERIC_SS58_PREFIX;
  let prefix = prefixes.get(properties);
  if (prefix === undefined) {
    prefix = registry.chainSS58 ?? GENERIC_SS58_PREFIX;
    prefixes.set(properties, prefix);
  }
  return prefix;
}

const prefixes = new WeakMap<object, number>();

const GENERIC_SS58_PREFIX = 42;

/** The address of `bytes` under `prefix`. */
export function ss58(bytes: Uint8Array, prefix: number): string {
  return ss58At(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, bytes.byteLength, prefix);
}
