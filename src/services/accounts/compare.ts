// Whether addresses name the same account, whatever network each is written for
// (sidecar's /accounts/compare): computed here, nothing asked of the node.
import { u8aToHex } from '@polkadot/util';

import { badRequest } from '../../errors';
import { parseAddress } from './addresses';
import { validateAddress } from './validate';

/** One address as the client wrote it, and what it encodes (sidecar's names: `publicKey` is the account's bytes). */
export interface ComparedAddress {
  ss58Format: string;
  ss58Prefix: string | null;
  network: string | null;
  publicKey: string | null;
}

export interface AddressComparison {
  areEqual: boolean;
  addresses: ComparedAddress[];
}

/**
 * Equal when every address encodes the same bytes. An Ethereum address shows no ss58
 * details (it is none), but is compared by its own 20 bytes: sidecar compares the
 * missing details, so any two Ethereum addresses would be "equal" there.
 */
export function compareAddresses(addresses: readonly string[]): AddressComparison {
  const accounts = addresses.map((address) => {
    const parsed = parseAddress(address);
    if (parsed.kind === 'invalid') throw badRequest(`Invalid addresses: ${parsed.reason}`);
    return u8aToHex(parsed.account);
  });
  return {
    areEqual: accounts.every((account) => account === accounts[0]),
    addresses: addresses.map((address) => {
      const { ss58Prefix, network, accountId } = validateAddress(address);
      return { ss58Format: address, ss58Prefix, network, publicKey: accountId };
    }),
  };
}
