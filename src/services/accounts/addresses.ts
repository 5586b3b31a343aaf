// An account as a client names it in a path, read as sidecar reads it: an ss58 address of
// any network, the hex of an ss58 address's bytes, or a 20-byte Ethereum address. What the
// address encodes is taken from between its network prefix and its checksum (sidecar
// passes the hex form on whole, so its first bytes, the prefix among them, are taken for
// the account).
import { hexToU8a, isHex } from '@polkadot/util';
import { base58Decode, base58Validate, checkAddressChecksum, isEthereumAddress } from '@polkadot/util-crypto';
import { defaults } from '@polkadot/util-crypto/address/defaults';

export type ParsedAddress =
  | { kind: 'ss58'; prefix: number; account: Uint8Array }
  | { kind: 'publicKey'; account: Uint8Array }
  | { kind: 'ethereum'; account: Uint8Array }
  | { kind: 'invalid'; reason: string };

/** What an address may be at most (a 38-byte ss58 address is 52 characters, its hex 78): the rest is not decoded. */
const MAX_ADDRESS_CHARS = 128;

/**
 * The account a read is made for: an address as parseAddress reads it, or a 32-byte
 * public key written as 0x hex, which is the account itself (sidecar refuses it as no
 * address; a wallet that holds keys, not addresses, may send it).
 */
export function parseAccount(text: string): ParsedAddress {
  if (/^0x[0-9a-fA-F]{64}$/.test(text)) return { kind: 'publicKey', account: hexToU8a(text) };
  return parseAddress(text);
}

export function parseAddress(text: string): ParsedAddress {
  let bytes: Uint8Array;
  if (isHex(text)) {
    bytes = hexToU8a(text);
  } else {
    try {
      // Decoding costs the square of the length: a long text is only checked (what sidecar would name first), not decoded.
      if (text.length > MAX_ADDRESS_CHARS && base58Validate(text)) return { kind: 'invalid', reason: 'Invalid address format' };
      bytes = base58Decode(text);
    } catch (error) {
      return { kind: 'invalid', reason: error instanceof Error ? error.message : 'Invalid address format' };
    }
  }
  if (defaults.allowedEncodedLengths.includes(bytes.length)) {
    const [valid, end, prefixLength, prefix] = checkAddressChecksum(bytes);
    if (!valid) return { kind: 'invalid', reason: 'Invalid decoded address checksum' };
    return { kind: 'ss58', prefix, account: bytes.slice(prefixLength, end) };
  }
  if (isEthereumAddress(text)) return { kind: 'ethereum', account: bytes };
  return { kind: 'invalid', reason: 'Invalid address format' };
}
