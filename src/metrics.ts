// Prometheus metrics. Counters are bumped on the hot path, so they are plain
// prom-client objects created once; the cache gauges are read at scrape time.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

import type { TieredCache } from './cache/tieredCache';
import { decodeCounters } from './services/bodyDecoding';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Histogram({
    name: 'fastcar_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly rpcCalls = new Counter({
    name: 'fastcar_rpc_calls_total',
    help: 'JSON-RPC calls made to the node, by method',
    labelNames: ['method'] as const,
    registers: [this.registry],
  });
  readonly rpcErrors = new Counter({
    name: 'fastcar_rpc_errors_total',
    help: 'JSON-RPC calls that failed or timed out, by method',
    labelNames: ['method'] as const,
    registers: [this.registry],
  });
  // Over HTTP(S) (a hosted provider), per upstream host: what a wave of calls cost, and the provider's limits at work.
  readonly rpcHttpRequests = new Counter({
    name: 'fastcar_rpc_http_requests_total',
    help: 'HTTP requests (JSON-RPC batches or single calls) sent to an http(s) node, by host',
    labelNames: ['upstream'] as const,
    registers: [this.registry],
  });
  readonly rpcThrottled = new Counter({
    name: 'fastcar_rpc_throttled_total',
    help: 'Answers of an http(s) node asking to slow down (HTTP 429/503, JSON-RPC busy or too many requests), by host and kind',
    labelNames: ['upstream', 'how'] as const,
    registers: [this.registry],
  });
  readonly rpcRetries = new Counter({
    name: 'fastcar_rpc_retries_total',
    help: 'Calls sent again to an http(s) node after a throttled or failed attempt, by host',
    labelNames: ['upstream'] as const,
    registers: [this.registry],
  });
  readonly rpcBatchesRefused = new Counter({
    name: 'fastcar_rpc_batches_refused_total',
    help: 'JSON-RPC batches an http(s) node refused (too large: smaller batches; refused: single calls from then on), by host',
    labelNames: ['upstream', 'reason'] as const,
    registers: [this.registry],
  });

  constructor(cache: TieredCache) {
    collectDefaultMetrics({ register: this.registry, prefix: 'fastcar_' });
    this.gauge('fastcar_cache_hits', 'Cache hits since start', () => cache.counters.hits);
    this.gauge('fastcar_cache_misses', 'Cache misses since start', () => cache.counters.misses);
    this.gauge('fastcar_cache_redis_hits', 'Hits served by Redis since start', () => cache.counters.redisHits);
    this.gauge('fastcar_cache_redis_errors', 'Redis errors since start', () => cache.counters.redisErrors);
    this.gauge('fastcar_cache_bytes', 'Bytes held by the in-process cache', () => cache.bytes);
    this.gauge('fastcar_cache_entries', 'Entries held by the in-process cache', () => cache.entries);
    this.gauge('fastcar_blocks_decoded_compiled', 'Blocks read by the compiled codecs since start', () => decodeCounters.compiled);
    this.gauge('fastcar_blocks_decoded_fallback', 'Blocks read by polkadot.js since start (old metadata, or bytes the compiled codecs declined)', () => decodeCounters.fallback);
    this.gauge('fastcar_decode_faults', 'Blocks the compiled codecs failed on by an error of their own (read by polkadot.js instead) since start', () => decodeCounters.faults);
    this.gauge('fastcar_decode_pauses', 'Times a block decode yielded to other requests since start', () => decodeCounters.pauses);
  }

  counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }

  /** A gauge read at scrape time. */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}
