// Whether a text is an ss58 address, of which network, naming which account (sidecar's
// /accounts/{id}/validate): computed here, nothing asked of the node.
import { u8aToHex } from '@polkadot/util';
import { allNetworks } from '@polkadot/util-crypto';

import { parseAddress } from './addresses';

export interface AddressValidity {
  isValid: boolean;
  ss58Prefix: string | null;
  network: string | null;
  accountId: string | null;
}

const INVALID: AddressValidity = { isValid: false, ss58Prefix: null, network: null, accountId: null };

/** The first network registered with a prefix, as sidecar names it (several share some prefixes). */
function networkOf(prefix: number): string | null {
  return allNetworks.find((network) => network.prefix === prefix)?.network ?? null;
}

/** An Ethereum address is not an ss58 address: invalid, as sidecar says. */
export function validateAddress(text: string): AddressValidity {
  const parsed = parseAddress(text);
  if (parsed.kind !== 'ss58') return INVALID;
  return { isValid: true, ss58Prefix: String(parsed.prefix), network: networkOf(parsed.prefix), accountId: u8aToHex(parsed.account) };
}
