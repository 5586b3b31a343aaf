// A parachain (Asset Hub) and its relay chain: which parachain blocks a relay
// chain block included, each answered as the parachain's own block with the relay
// block it came with (sidecar's `useRcBlock=true`).
import type { Hex } from '../rpc/nodeClient';
import { wave } from '../rpc/requestStats';
import type { BlockId } from './blockAnswer';
import type { ChainServices } from './chain';

export interface RelayBlockRef {
  hash: Hex;
  parentHash: Hex;
  number: number;
}

export interface Included<T> {
  value: T;
  ahTimestamp?: string;
}

/** Asset Hub's id, for a parachain that does not say its own. */
const ASSET_HUB_PARA_ID = 1000;

export class RelayLink {
  private paraId?: Promise<number>;

  /** `relay` throws (NodeUnavailableError) while the relay chain is not connected. */
  constructor(
    private readonly parachain: ChainServices,
    private readonly relay: () => ChainServices,
  ) {}

  /** This parachain's id, read once from its own state. */
  private ownParaId(): Promise<number> {
    if (!this.paraId) {
      this.paraId = this.parachain.reads.ownParaId().then((id) => id ?? ASSET_HUB_PARA_ID);
      this.paraId.catch(() => (this.paraId = undefined));
    }
    return this.paraId;
  }

  /** The relay block at `id` (a relay chain height or hash, or its head) and the hashes of this parachain's blocks it included. */
  async includedBy(id: BlockId | 'best' | 'finalized'): Promise<{ relayBlock: RelayBlockRef; hashes: Hex[] }> {
    const relay = this.relay();
    const relayId: BlockId = typeof id === 'string' ? { kind: 'hash', hash: await relay.ids.headHash(id === 'finalized') } : id;
    const [found, paraId] = await wave([relay.reads.paraInclusions(relayId), this.ownParaId()] as const);
    const hashes = found.inclusions.filter((inclusion) => Number(inclusion.paraId) === paraId).map((inclusion) => inclusion.paraBlockHash as Hex);
    return { relayBlock: { hash: found.hash, parentHash: found.parentHash, number: found.number }, hashes };
  }

  /** What `read` answers for each included block, with its timestamp, in the order the relay block included them. */
  async eachIncluded<T>(id: BlockId | 'best' | 'finalized', read: (hash: Hex) => Promise<T>): Promise<{ relayBlock: RelayBlockRef; items: Included<T>[] }> {
    const { relayBlock, hashes } = await this.includedBy(id);
    const items = await wave(
      hashes.map(async (hash) => {
        const [value, ahTimestamp] = await Promise.all([read(hash), this.parachain.reads.timestampAt(hash)]);
        return { value, ahTimestamp };
      }),
    );
    return { relayBlock, items };
  }
}
