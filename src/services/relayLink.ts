// A parachain (Asset Hub) and its relay chain: which parachain blocks a relay
// chain block included, each answered as the parachain's own block with the relay
// block it came with (sidecar's `useRcBlock=true`).
import type { Hex } from '../rpc/nodeClient';
import { wave, type RequestStats } from '../rpc/requestStats';
import type { BlockId } from './shared/at/blockIds';
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
  /**
   * `relay` throws (NodeUnavailableError) while the relay chain is not connected.
   * `paraId` holds this parachain's id once read, shared by every request's link.
   */
  constructor(
    private readonly parachain: ChainServices,
    private readonly relay: () => ChainServices,
    private readonly paraId: { read?: Promise<number> } = {},
  ) {}

  /** The link for one request: both chains' node calls counted in `stats`. */
  forRequest(stats: RequestStats): RelayLink {
    return new RelayLink(this.parachain.forRequest(stats), () => this.relay().forRequest(stats), this.paraId);
  }

  /** The relay chain's services (throws NodeUnavailableError while it is not connected). */
  relayServices(): ChainServices {
    return this.relay();
  }

  /** This parachain's id, read once from its own state. */
  private ownParaId(): Promise<number> {
    const { paraId } = this;
    if (!paraId.read) {
      paraId.read = this.parachain.reads.ownParaId().then((id) => id ?? ASSET_HUB_PARA_ID);
      paraId.read.catch(() => (paraId.read = undefined));
    }
    return paraId.read;
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
