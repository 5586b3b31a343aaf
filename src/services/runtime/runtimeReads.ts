// The runtime family's reads: the runtime's version at a block, with what the node says
// of its chain (type, properties), as sidecar's /runtime/spec answers it.
import type { TieredCache } from '../../cache/tieredCache';
import { sidecarJsonOf } from '../../decode/rpcJson';
import type { NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { readAt, type AtBlock } from '../blockAt';
import type { BlockIds } from '../blockIds';
import type { NodeFacts } from '../nodeFacts';

/** An answer read at a block: its JSON, and whether it can never change (then it may be kept, by hash). */
export interface AnswerAt {
  json: string;
  hash: string;
  final: boolean;
}

export class RuntimeReads {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly facts: NodeFacts,
  ) {}

  async spec(at: AtBlock): Promise<AnswerAt> {
    const [block, chainType, properties] = await wave([readAt(this.node, this.ids, this.cache, at), this.facts.chainType(), this.facts.properties()] as const);
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
