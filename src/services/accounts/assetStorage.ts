// Where a runtime keeps assets of one kind (the Assets, PoolAssets and ForeignAssets
// pallets share one code, so one layout reads all three): the maps of assets, their
// metadata, accounts' balances and approvals, read from the runtime's metadata.
import type { TypeRegistry } from '@polkadot/types';

import { storageItemOf, type StorageMap } from '../shared/storage/storageLayout';

export { keyOf, keyPartOf, readValue, type StorageMap } from '../shared/storage/storageLayout';

export type AssetPallet = 'Assets' | 'PoolAssets' | 'ForeignAssets';

export interface AssetLayout {
  /** Every asset's details, keyed by its id: listed for "all assets". */
  asset: StorageMap;
  /** Name, symbol, decimals, keyed by the id. */
  metadata: StorageMap | undefined;
  /** Balances: (asset id, account). */
  account: StorageMap;
  /** Approvals: (asset id, owner, delegate); absent on runtimes without it. */
  approvals: StorageMap | undefined;
}

/** The pallet's layout, or null when the runtime has no such pallet (sidecar: a 400 naming it). */
export function assetLayoutOf(registry: TypeRegistry, pallet: AssetPallet): AssetLayout | null {
  const mapOf = (item: string) => {
    const found = storageItemOf(registry, pallet, item);
    return found && found.hashers.length > 0 ? found : undefined;
  };
  const [asset, account] = [mapOf('Asset'), mapOf('Account')];
  if (!asset || !account) return null;
  return { asset, metadata: mapOf('Metadata'), account, approvals: mapOf('Approvals') };
}
