// The services over one chain's node, made together so they share one id resolver.
import type { TieredCache } from '../cache/tieredCache';
import type { Hex, NodeClient } from '../rpc/nodeClient';
import { BlockIds } from './blockIds';
import { BlocksService } from './blocksService';
import { ChainReads } from './chainReads';
import type { FinalizedHead } from './finalizedHead';
import { RuntimeRegistry } from './runtimes';

export interface ChainServices {
  ids: BlockIds;
  blocks: BlocksService;
  reads: ChainReads;
}

export function chainServices(node: NodeClient, finalized: FinalizedHead, cache: TieredCache, genesisHash: Hex): ChainServices {
  const runtimes = new RuntimeRegistry(node);
  const ids = new BlockIds(node, finalized, cache);
  return {
    ids,
    blocks: new BlocksService(node, runtimes, finalized, cache, genesisHash, ids),
    reads: new ChainReads(node, runtimes, finalized, cache, ids),
  };
}
