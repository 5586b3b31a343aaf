// A public key or account id (hex) written as an ss58 address of a network (sidecar's
// /accounts/{accountId}/convert): computed here, nothing asked of the node. An ECDSA
// public key (33 bytes) names the account of its blake2-256 hash, as the keyring
// derives it, when the client says the hex is a public key.
import { hexToU8a, isHex } from '@polkadot/util';
import { allNetworks, blake2AsU8a, encodeAddress } from '@polkadot/util-crypto';
import { defaults } from '@polkadot/util-crypto/address/defaults';

import { badRequest } from '../../errors';

export const SCHEMES = ['ed25519', 'sr25519', 'ecdsa'] as const;
export type Scheme = (typeof SCHEMES)[number];

export interface ConvertRequest {
  scheme: Scheme;
  prefix: number;
  publicKey: boolean;
}

/** The answer, in sidecar's field order. */
export interface ConvertedAccount {
  ss58Prefix: string;
  network: string;
  address: string;
  accountId: string;
  scheme: Scheme;
  publicKey: boolean;
}

/** Prefixes the registry lists but ss58 keeps out of use. */
const RESERVED_PREFIXES = [46, 47];

const LENGTHS_MESSAGE = `Expected a valid key to convert, with length ${defaults.allowedDecodedLengths.join(', ')}`;

/** The first network registered with a prefix, as sidecar names it. */
function networkOf(prefix: number): string | undefined {
  return allNetworks.find((network) => network.prefix === prefix)?.network;
}

/** `accountId` is echoed as the client wrote it. Every refusal is a 400, checked before anything is decoded. */
export function convertAccount(accountId: string, request: ConvertRequest): ConvertedAccount {
  if (!isHex(accountId)) throw badRequest('The `accountId` parameter provided is not a valid hex value.');
  const network = networkOf(request.prefix);
  if (network === undefined) throw badRequest('The given `prefix` query parameter does not correspond to an existing network.');
  // Sidecar lets polkadot.js throw these (a 500); the length is known from the text, so nothing long is decoded.
  if (RESERVED_PREFIXES.includes(request.prefix)) throw badRequest('Out of range ss58Format specified');
  if (!defaults.allowedDecodedLengths.includes((accountId.length - 2) / 2)) throw badRequest(LENGTHS_MESSAGE);
  let bytes = hexToU8a(accountId);
  if (request.publicKey && request.scheme === 'ecdsa' && bytes.length > 32) bytes = blake2AsU8a(bytes, 256);
  return {
    ss58Prefix: String(request.prefix),
    network,
    address: encodeAddress(bytes, request.prefix),
    accountId,
    scheme: request.scheme,
    publicKey: request.publicKey,
  };
}
