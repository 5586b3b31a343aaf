// The chain's own safe XCM version (pallet-xcm's SafeXcmVersion storage, in whichever
// pallet holds it: XcmPallet on relay chains, PolkadotXcm on system parachains), which
// a dry run's results are written in when the client names none. Sidecar reads it only
// from a pallet named xcmPallet, so on Asset Hub it sends version 0, which no XCM
// converts to. The last value read is kept, so the next dry run can send it at once
// and check it in the same wave.
import type { TypeRegistry } from '@polkadot/types';
import { hexToU8a } from '@polkadot/util';

import { badRequest } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { itemPrefix } from '../shared/storage/storageLayout';

const ITEM = 'SafeXcmVersion';

function storageKeyOf(registry: TypeRegistry): Hex | undefined {
  const pallet = registry.metadata.pallets.find((entry) => entry.storage.isSome && entry.storage.unwrap().items.some((item) => item.name.toString() === ITEM));
  if (!pallet) return undefined;
  return itemPrefix(pallet.name.toString(), ITEM);
}

export class SafeXcmVersions {
  /** The version the chain gave last (any block): the likely one now. */
  lastSeen?: number;

  /** The chain's safe version at `hash`; undefined where no pallet keeps one (version 0 is then sent, as sidecar does). */
  async read(node: NodeClient, registry: TypeRegistry, hash: Hex): Promise<number | undefined> {
    const key = storageKeyOf(registry);
    if (!key) return undefined;
    const raw = await node.getStorage(key, hash);
    if (raw === null || raw === undefined) throw badRequest('No safe xcm version found on chain.');
    // As bytes: a hex string handed to createType would be read as a big-endian number.
    const version = registry.createType('u32', hexToU8a(raw)).toNumber();
    this.lastSeen = version;
    return version;
  }
}
