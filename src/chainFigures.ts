// The metrics of one chain's parts (the cache, the decoding, the node client, the
// finalized head, the fleet's build leases): figures those parts keep themselves,
// defined here once and read at scrape time.
import type { BuildLeases } from './cache/buildLeases';
import type { RedisStore } from './cache/redisStore';
import type { TieredCache } from './cache/tieredCache';
import type { Metrics } from './metrics';
import type { NodeClient } from './rpc/nodeClient';
import { decodeCounters } from './services/blocks/bodyDecoding';
import type { FinalizedHead } from './services/finalizedHead';

export interface ChainParts {
  cache: TieredCache;
  node: NodeClient;
  finalized: FinalizedHead;
  leases?: BuildLeases;
  redis?: RedisStore;
}

/** The figures kept by the parts below (the cache, the decoding, the node client, the finalized head), read at scrape time. */
export function exposeChainFigures(metrics: Metrics, { cache, node, finalized, leases, redis }: ChainParts): void {
  if (redis) {
    metrics.gauge(
      'fastcar_redis_shared',
      '1 while Redis answers (answers, leases and extrinsic hashes shared by the replicas), 0 while it is away or not answering in time',
      () => (redis.connected ? 1 : 0),
    );
  }
  if (leases) {
    metrics.totalsBy(
      'fastcar_block_builds_leased_total',
      'Final block answers asked of the fleet since start (led: built here under the lease; awaited: built by another replica; ' +
        'tookOver: built here after the holder died; redisAway, notShared: built here alone)',
      'outcome',
      () => leases.counters,
    );
  }
  metrics.total('fastcar_cache_hits', 'Cache hits since start', () => cache.counters.hits);
  metrics.total('fastcar_cache_misses', 'Cache misses since start', () => cache.counters.misses);
  metrics.total('fastcar_cache_redis_hits', 'Hits served by Redis since start', () => cache.counters.redisHits);
  metrics.total('fastcar_cache_redis_errors', 'Redis errors since start', () => cache.counters.redisErrors);
  metrics.gauge('fastcar_cache_bytes', 'Bytes held by the in-process cache', () => cache.bytes);
  metrics.gauge('fastcar_cache_entries', 'Entries held by the in-process cache', () => cache.entries);
  metrics.total('fastcar_blocks_decoded_compiled', 'Blocks read by the compiled codecs since start', () => decodeCounters.compiled);
  metrics.total(
    'fastcar_blocks_decoded_fallback',
    'Blocks read by polkadot.js since start (old metadata, or bytes the compiled codecs declined)',
    () => decodeCounters.fallback,
  );
  metrics.total(
    'fastcar_decode_faults',
    'Blocks the compiled codecs failed on by an error of their own (read by polkadot.js instead) since start',
    () => decodeCounters.faults,
  );
  metrics.total('fastcar_decode_pauses', 'Times a block decode yielded to other requests since start', () => decodeCounters.pauses);
  metrics.gauge('fastcar_node_requests_pending', 'Node calls sent and not yet answered or given up', () => node.pendingRequests);
  metrics.gauge('fastcar_finalized_height', 'The finalized height the node last reported', () => (finalized.known ? finalized.height : -1));
  metrics.gauge('fastcar_finalized_age_seconds', 'Seconds since the finalized height last moved', () => finalized.secondsSinceAdvance() ?? -1);
}
