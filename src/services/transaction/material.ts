// What a wallet needs to build a transaction offline (sidecar's /transaction/material):
// the block's hash and height, the genesis hash, the chain's name and the runtime's
// spec and transaction versions, with the metadata when asked for, as SCALE hex or as
// JSON (../metadata.ts: once per runtime, kept).
import type { TieredCache } from '../../cache/tieredCache';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { readAt, type AtBlock, type ReadAt, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { MetadataForm, RuntimeMetadata } from '../metadata';
import type { NodeFacts } from '../nodeFacts';

export class TransactionMaterial {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly facts: NodeFacts,
    private readonly metadata: RuntimeMetadata,
    private readonly genesisHash: Hex,
  ) {}

  /** The material at `at`; `metadata`, the runtime's metadata as its metadata RPC gives it (sidecar's `metadata=`). */
  async material(at: AtBlock, metadata: MetadataForm | undefined): Promise<AnswerAt> {
    const [block, chainName] = await wave([readAt(this.node, this.ids, this.cache, at), this.facts.chain()] as const);
    // Renamed as sidecar's material writes it; a versioned one is v14 or later, with nothing to rename.
    const text = metadata === undefined ? undefined : await this.metadata.text(block, metadata, 'rpc', true);
    return this.answer(block, chainName, text);
  }

  /** The same with the metadata at one of the versions the runtime offers (`v14`, `v15`, ...). */
  async materialAtVersion(at: AtBlock, version: number, metadata: MetadataForm | undefined): Promise<AnswerAt> {
    const [block, chainName] = await wave([readAt(this.node, this.ids, this.cache, at), this.facts.chain()] as const);
    const text = await this.metadata.text(block, metadata ?? 'json', version);
    return this.answer(block, chainName, text);
  }

  private answer(block: ReadAt, chainName: string, metadataText: string | undefined): AnswerAt {
    const head = JSON.stringify({
      at: { hash: block.hash, height: String(block.number) },
      genesisHash: this.genesisHash,
      chainName,
      specName: block.version.specName,
      specVersion: String(block.version.specVersion),
      txVersion: String(block.version.transactionVersion),
    });
    // The metadata is already JSON text: joined, not parsed and written again.
    const json = metadataText === undefined ? head : `${head.slice(0, -1)},"metadata":${metadataText}}`;
    return { json, hash: block.hash, final: block.final };
  }
}
