// The runtime family's reads at a block, as sidecar's /runtime routes answer them: the
// runtime's version with what the node says of its chain (type, properties), its
// metadata (../metadata.ts: built once per runtime, kept) and its code.
import type { TieredCache } from '../../cache/tieredCache';
import { sidecarJsonOf } from '../../decode/rpcJson';
import type { NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { readAt, type AnswerAt, type AtBlock, type ReadAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import { metadataKey, type MetadataVersion, type RuntimeMetadata } from '../metadata';
import type { NodeFacts } from '../nodeFacts';
import type { RuntimeCode } from './runtimeCode';

export class RuntimeReads {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly facts: NodeFacts,
    private readonly metadataOf: RuntimeMetadata,
    private readonly codeOf: RuntimeCode,
  ) {}

  private readAt(at: AtBlock): Promise<ReadAt> {
    return readAt(this.node, this.ids, this.cache, at);
  }

  /** The metadata itself (no `at` beside it, as sidecar answers): as the metadata RPC gives it, or at a version. */
  async metadata(at: AtBlock, version: MetadataVersion): Promise<AnswerAt> {
    const block = await this.readAt(at);
    const json = await this.metadataOf.text(block, 'json', version);
    return { json, hash: block.hash, final: block.final, sharedKey: metadataKey(block, 'json', version) };
  }

  /** The metadata versions the runtime offers, as decimal strings. */
  async metadataVersions(at: AtBlock): Promise<AnswerAt> {
    const block = await this.readAt(at);
    const versions = await this.metadataOf.versions(block);
    return { json: JSON.stringify(versions.map(String)), hash: block.hash, final: block.final };
  }

  /** The runtime's code (`:code`) as hex, null where the block has none. */
  async code(at: AtBlock): Promise<AnswerAt> {
    const block = await this.readAt(at);
    const code = await this.codeOf.at(block);
    const json = JSON.stringify({ at: { hash: block.hash, height: String(block.number) }, code });
    return { json, hash: block.hash, final: block.final };
  }

  async spec(at: AtBlock): Promise<AnswerAt> {
    const [block, chainType, properties] = await wave([this.readAt(at), this.facts.chainType(), this.facts.properties()] as const);
    const { version } = block;
    const body = {
      at: { height: String(block.number), hash: block.hash },
      authoringVersion: String(version.authoringVersion),
      transactionVersion: String(version.transactionVersion),
      implVersion: String(version.implVersion),
      specName: version.specName,
      specVersion: String(version.specVersion),
      chainType: sidecarJsonOf('ChainType', chainType),
      properties: sidecarJsonOf('ChainProperties', properties),
    };
    return { json: JSON.stringify(body), hash: block.hash, final: block.final };
  }
}
