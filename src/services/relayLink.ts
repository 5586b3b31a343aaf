// A parachain (Asset Hub) and its relay chain: which parachain blocks a relay
// chain block included, each answered as the parachain's own block with the relay
// block it came with (sidecar's `useRcBlock=true`).
import type { Hex } from '../rpc/nodeClient';
import { wave } from '../rpc/requestStats';
import type { BlockAnswer, BlockId, BlockQuery } from './blockAnswer';
import type { BlocksService } from './blocksService';

export interface RelayBlockRef {
  hash: Hex;
  parentHash: Hex;
  number: number;
}

export interface IncludedBlock {
  answer: BlockAnswer;
  ahTimestamp?: string;
}

/** Asset Hub's id, for a parachain that does not say its own. */
const ASSET_HUB_PARA_ID = 1000;

export class RelayLink {
  private paraId?: Promise<number>;

  constructor(
    private readonly parachain: BlocksService,
    private readonly relay: BlocksService,
  ) {}

  /** This parachain's id, read once from its own state. */
  private ownParaId(): Promise<number> {
    if (!this.paraId) {
      this.paraId = this.parachain.ownParaId().then((id) => id ?? ASSET_HUB_PARA_ID);
      this.paraId.catch(() => (this.paraId = undefined));
    }
    return this.paraId;
  }

  /** The relay block at `id` (a relay chain height or hash, or its head) and the hashes of this parachain's blocks it included. */
  async includedBy(id: BlockId | 'best' | 'finalized'): Promise<{ relayBlock: RelayBlockRef; hashes: Hex[] }> {
    const relayId: BlockId = typeof id === 'string' ? { kind: 'hash', hash: (await this.relay.headerAt(id)).hash } : id;
    const [found, paraId] = await wave([this.relay.paraInclusions(relayId), this.ownParaId()] as const);
    const hashes = found.inclusions.filter((inclusion) => Number(inclusion.paraId) === paraId).map((inclusion) => inclusion.paraBlockHash as Hex);
    return { relayBlock: { hash: found.hash, parentHash: found.parentHash, number: found.number }, hashes };
  }

  /** Each included block's answer and timestamp, in the order the relay block included them. */
  async blocksIncludedBy(id: BlockId | 'best' | 'finalized', query: BlockQuery): Promise<{ relayBlock: RelayBlockRef; blocks: IncludedBlock[] }> {
    const { relayBlock, hashes } = await this.includedBy(id);
    const blocks = await wave(
      hashes.map(async (hash) => {
        const [answer, ahTimestamp] = await Promise.all([this.parachain.blockAt(hash, query, true), this.parachain.timestampAt(hash)]);
        return { answer, ahTimestamp };
      }),
    );
    return { relayBlock, blocks };
  }
}
