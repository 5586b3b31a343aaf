// What a wallet needs to build a transaction offline (sidecar's /transaction/material):
// the block's hash and height, the genesis hash, the chain's name and the runtime's
// spec and transaction versions, with the metadata when asked for, as SCALE hex or as
// JSON. Metadata is the same for every block of a runtime version: it is fetched and
// turned into JSON once per runtime, and kept in the cache.
import { Metadata, TypeRegistry } from '@polkadot/types';
import { u8aToHex } from '@polkadot/util';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { NotAtThisBlockError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { readAt, type AtBlock, type ReadAt } from '../blockAt';
import type { BlockIds } from '../blockIds';
import type { NodeFacts } from '../nodeFacts';
import type { AnswerAt } from '../runtime/runtimeReads';

export type MetadataForm = 'json' | 'scale';

/** The metadata of a runtime version (as the node's metadata RPC gives it, or at a version), in a form. */
const metadataKey = (block: ReadAt, form: MetadataForm, version: number | 'rpc') =>
  `md:${block.version.specName}:${block.version.specVersion}:${version}:${form}`;

export class TransactionMaterial {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly facts: NodeFacts,
    private readonly genesisHash: Hex,
  ) {}

  /** The material at `at`; `metadata`, the runtime's metadata as its metadata RPC gives it (sidecar's `metadata=`). */
  async material(at: AtBlock, metadata: MetadataForm | undefined): Promise<AnswerAt> {
    const [block, chainName] = await wave([readAt(this.node, this.ids, this.cache, at), this.facts.chain()] as const);
    const text = metadata === undefined ? undefined : await this.metadataOf(block, metadata, 'rpc');
    return this.answer(block, chainName, text);
  }

  /** The same with the metadata at one of the versions the runtime offers (`v14`, `v15`, ...). */
  async materialAtVersion(at: AtBlock, version: number, metadata: MetadataForm | undefined): Promise<AnswerAt> {
    const [block, chainName] = await wave([readAt(this.node, this.ids, this.cache, at), this.facts.chain()] as const);
    const text = await this.metadataOf(block, metadata ?? 'json', version);
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

  /** The metadata as JSON text: a hex string for `scale`, sidecar's JSON of polkadot.js's reading for `json`. */
  private async metadataOf(block: ReadAt, form: MetadataForm, version: number | 'rpc'): Promise<string> {
    const key = metadataKey(block, form, version);
    const kept = await this.cache.get(key);
    if (kept) return kept;
    const hex = version === 'rpc' ? await this.node.getMetadata(block.hash) : await this.metadataAtVersion(block.hash, version);
    const text = form === 'scale' ? JSON.stringify(hex) : JSON.stringify(toSidecarJson(new Metadata(new TypeRegistry(), hex)));
    this.cache.set(key, text);
    return text;
  }

  private async metadataAtVersion(hash: Hex, version: number): Promise<Hex> {
    const registry = new TypeRegistry();
    let offered: number[];
    try {
      offered = registry.createType('Vec<u32>', await this.node.call('Metadata_metadata_versions', '0x', hash)).map((v) => v.toNumber());
    } catch (error) {
      if (error instanceof Error && /not found|does not exist|unknown/i.test(error.message)) {
        throw new NotAtThisBlockError('The runtime at this block offers no metadata versions (its Metadata API is older than version 2).');
      }
      throw error;
    }
    if (!offered.includes(version)) throw new NotAtThisBlockError(`Version ${version} of Metadata is not available.`);
    const raw = await this.node.call('Metadata_metadata_at_version', u8aToHex(registry.createType('u32', version).toU8a()), hash);
    const opaque = registry.createType('Option<OpaqueMetadata>', registry.createType('Raw', raw).toU8a());
    if (opaque.isNone) throw new NotAtThisBlockError(`Version ${version} of Metadata is not available.`);
    return opaque.unwrap().toHex();
  }
}
