// Wires what follows the finalized chain for clients: the shared builds of newly
// finalized blocks (the prebuilder's and the streams'), the block streams, the
// extrinsic index, their metrics and their routes' handlers. server.ts serves them.

import type { TieredCache } from './cache/tieredCache';
import type { Config } from './config';
import { followHandlers } from './controllers/follow/handlers';
import type { FollowRouteName } from './controllers/follow/routes';
import type { FamilyHandlers } from './http/routes';
import { sseFrames } from './http/sse';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import type { NodeClient } from './rpc/nodeClient';
import type { ChainServices } from './services/chain';
import { BlockStreams } from './services/follow/blockStream';
import { ExtrinsicIndex } from './services/follow/extrinsicIndex';
import { FinalizedBuilds } from './services/follow/finalizedBuilds';
import { FinalizedFeed } from './services/follow/finalizedFeed';
import type { FinalizedHead } from './services/finalizedHead';
import { DEFAULT_QUERY, Prebuilder } from './services/follow/prebuilder';

export interface ChainParts {
  node: NodeClient;
  finalized: FinalizedHead;
  services: ChainServices;
  cache: TieredCache;
}

export interface Following {
  handlers: FamilyHandlers<FollowRouteName>;
  /** Ends every stream (each told where to resume) and stops the index. */
  close(): Promise<void>;
}

type FollowConfig = Pick<Config, 'prebuildBlocks' | 'maxStreams' | 'streamBufferBytes' | 'extrinsicIndexBlocks'>;

export function followTheChain({ node, finalized, services, cache }: ChainParts, config: FollowConfig, metrics: Metrics, logger: Logger): Following {
  const builds = new FinalizedBuilds(services.blocks, services.reads);
  const feed = new FinalizedFeed(finalized);
  if (config.prebuildBlocks > 0) {
    const prebuilder = new Prebuilder(builds, logger, config.prebuildBlocks);
    feed.onAdvance((number) => prebuilder.onFinalized(number));
  }
  const streams = new BlockStreams(
    builds,
    feed,
    sseFrames,
    { connected: () => node.isConnected, reachable: () => node.reachable() },
    { maxStreams: config.maxStreams, bufferBytes: config.streamBufferBytes },
    logger,
  );
  // With the prebuilder on, every new height is built anyway (once per fleet): the index takes its hashes from that build.
  const built = config.prebuildBlocks > 0 ? (height: number) => builds.block({ kind: 'number', number: height }, DEFAULT_QUERY) : undefined;
  const index = new ExtrinsicIndex({ ids: services.ids, node, feed, cache, built, logger, size: config.extrinsicIndexBlocks });
  index.start();

  metrics.gauge('fastcar_streams_open', 'Block streams open now', () => streams.open);
  metrics.gauge('fastcar_stream_channels', 'Distinct option sets streamed now (each built once per block)', () => streams.channelCount);
  metrics.total('fastcar_stream_events_sent', 'Block events written to streams since start', () => streams.counters.eventsSent);
  metrics.totalsBy(
    'fastcar_stream_clients_dropped',
    'Streams ended since start because their client fell too far behind (lagging: live, over its buffer; stalled: catching up, reading nothing)',
    'reason',
    () => streams.counters.dropped,
  );
  metrics.gauge('fastcar_extrinsic_index_blocks', 'Finalized blocks the extrinsic index holds', () => index.window.size);
  metrics.gauge('fastcar_extrinsic_index_entries', 'Extrinsic hashes the extrinsic index holds', () => index.window.entries);

  return {
    handlers: followHandlers({ streams, index, blocks: services.blocks, feed }),
    async close() {
      index.close();
      await streams.close();
    },
  };
}
