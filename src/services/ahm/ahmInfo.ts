// Where the 2025 Asset Hub migration started and ended, on the relay chain and on its
// Asset Hub, as sidecar's /ahm-info answers it: from the table of known migrations for
// the chains in it (no node call beyond the runtime version); else from the migrator
// pallets' own records at the finalized head, this chain's and its counterpart's
// (the relay chain of an Asset Hub, when one is configured) in one wave.
import type { TieredCache } from '../../cache/tieredCache';
import { badRequest } from '../../errors';
import type { NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { ASSET_HUB_OF_RELAY, ASSET_HUBS, MIGRATIONS } from '../assetHubMigration';
import { readResolvedAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { RuntimeRegistry } from '../runtimes';
import { readValuesAt } from '../shared/storage/storageValues';

interface Window {
  startBlock: string | null;
  endBlock: string | null;
}

const NOTHING: Window = { startBlock: null, endBlock: null };

export class AhmInfo {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /** `counterpart`: the other side's reads (an Asset Hub's relay chain), when configured. Answered as JSON text. */
  async info(counterpart: (() => AhmInfo) | undefined): Promise<string> {
    const block = await this.ids.at('finalized');
    const read = await readResolvedAt(this.node, this.cache, block);
    const { specName } = await this.runtimes.get(read.version, read.hash);
    const isAssetHub = ASSET_HUBS.has(specName);
    const known = MIGRATIONS[isAssetHub ? specName : (ASSET_HUB_OF_RELAY[specName] ?? '')];
    if (known) {
      const window = ([start, end]: [number, number]) => ({ startBlock: String(start), endBlock: String(end) });
      return JSON.stringify({ relay: window(known.relay), assetHub: window(known.assetHub) });
    }
    if (!isAssetHub && ASSET_HUB_OF_RELAY[specName] === undefined) {
      throw badRequest(`The migration of ${specName} to an Asset Hub is not known: fastcar knows the Asset Hubs of polkadot, kusama, westend and paseo.`);
    }
    const own = isAssetHub ? 'AhMigrator' : 'RcMigrator';
    const [mine, theirs] = await wave([this.recorded(own), isAssetHub && counterpart ? counterpart().recorded('RcMigrator') : undefined] as const);
    if (!mine) return JSON.stringify({ relay: NOTHING, assetHub: NOTHING });
    return JSON.stringify(isAssetHub ? { relay: theirs ?? NOTHING, assetHub: mine } : { relay: mine, assetHub: NOTHING });
  }

  /** The migrator pallet's start and end at the finalized head; undefined when the runtime has no such pallet. */
  async recorded(pallet: 'AhMigrator' | 'RcMigrator'): Promise<Window | undefined> {
    const block = await this.ids.at('finalized');
    const { values } = await readValuesAt(this.node, this.cache, this.runtimes, block, [
      [pallet, 'MigrationStartBlock'],
      [pallet, 'MigrationEndBlock'],
    ]);
    const [start, end] = values;
    if (start === undefined && end === undefined) return undefined;
    return { startBlock: start ? start.toString() : null, endBlock: end ? end.toString() : null };
  }
}
