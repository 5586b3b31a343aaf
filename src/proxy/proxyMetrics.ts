// What the proxy's /metrics shows: its own counts (cache, merged calls, calls
// refused and sockets closed, by reason), and gauges and totals read from the
// cache, the open WebSockets and each upstream when scraped.
import { Counter, Gauge, Registry } from 'prom-client';

import { urlForLogs } from '../logger';
import type { HttpRpcCounts } from '../rpc/transport';
import type { UpstreamPool } from './upstreamPool';

/** Why a call (or a connection) was answered with an error without reaching a node. */
export type RefusedReason = 'malformed' | 'batch' | 'method' | 'params' | 'answer_size' | 'subscriptions' | 'connections' | 'requests' | 'pipelined';
/** Why the proxy closed a WebSocket. */
export type ClosedReason = 'ping' | 'send_timeout' | 'idle';

/** Read when scraped. */
export interface ProxyReadings {
  cacheBytes(): number;
  unsentBytes(): number;
}

/** A count bumped once a call or more: a plain number, handed to its Prometheus counter only when scraped. */
export class Tally {
  value = 0;

  inc(): void {
    this.value += 1;
  }
}

function tally(registry: Registry, name: string, help: string): Tally {
  const counted = new Tally();
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counted.value);
    },
  });
  return counted;
}

export class ProxyMetrics {
  readonly registry = new Registry();
  readonly cacheHits = tally(this.registry, 'proxy_cache_hits_total', 'Calls answered from the cache');
  readonly cacheMisses = tally(this.registry, 'proxy_cache_misses_total', 'Cacheable calls sent upstream');
  readonly mergedCalls = tally(this.registry, 'proxy_merged_calls_total', 'Calls answered by a call already in flight');
  readonly upstreamCalls = tally(this.registry, 'proxy_upstream_calls_total', 'Calls sent to upstream nodes');
  readonly callTimeouts = new Counter({ name: 'proxy_call_timeouts_total', help: 'Calls the node did not answer in time', registers: [this.registry] });
  readonly stickyLost = new Counter({
    name: 'proxy_sticky_lost_total',
    help: 'Subscriptions held at one node (chainHead follows, watched transactions) ended because that node was lost',
    registers: [this.registry],
  });
  private readonly refusedCalls = new Counter({
    name: 'proxy_refused_calls_total',
    help: 'Calls (and connections) answered with an error without reaching a node, by reason',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  private readonly closedSockets = new Counter({
    name: 'proxy_closed_connections_total',
    help: 'Connections the proxy closed, by reason (HTTP ones for the send timeout only)',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  constructor(pool: UpstreamPool, readings: ProxyReadings) {
    const { registry } = this;
    new Gauge({
      name: 'proxy_cache_bytes',
      help: 'Memory the cache entries take, as counted',
      registers: [registry],
      collect() {
        this.set(readings.cacheBytes());
      },
    });
    new Gauge({
      name: 'proxy_unsent_bytes',
      help: 'Answer bytes waiting to go out to WebSocket clients',
      registers: [registry],
      collect() {
        this.set(readings.unsentBytes());
      },
    });
    const upstreamGauge = (name: string, help: string, read: (upstream: UpstreamPool['upstreams'][number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['upstream'],
        registers: [registry],
        collect() {
          this.reset(); // an upstream a reload removed is no longer shown
          for (const upstream of pool.upstreams) this.set({ upstream: urlForLogs(upstream.url) }, read(upstream));
        },
      });
    upstreamGauge('proxy_upstream_available', 'Whether the upstream takes calls now (1) or not (0)', (u) => Number(u.available));
    upstreamGauge('proxy_upstream_outstanding', 'Calls in flight at the upstream', (u) => u.outstanding);
    upstreamGauge('proxy_upstream_finalized_height', 'The finalized height the upstream last reported', (u) => u.finalizedNumber);
    upstreamGauge('proxy_upstream_best_height', 'The best height the upstream last reported', (u) => u.bestNumber);
    upstreamGauge('proxy_upstream_subscriptions', 'Subscriptions held at the upstream', (u) => u.subscriptions);
    upstreamGauge('proxy_upstream_connections', 'Connections open to the upstream', (u) => u.connections);
    // An http(s):// upstream (a hosted provider): what its calls cost in requests, and its limits at work.
    const httpTotal = (name: string, help: string, read: (counts: HttpRpcCounts) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['upstream'],
        registers: [registry],
        collect() {
          this.reset();
          for (const upstream of pool.upstreams) {
            const counts = upstream.httpCounts;
            if (counts) this.inc({ upstream: urlForLogs(upstream.url) }, read(counts));
          }
        },
      });
    httpTotal('proxy_upstream_http_requests_total', 'HTTP requests (JSON-RPC batches or single calls) sent to an http(s) upstream', (c) => c.requests);
    httpTotal(
      'proxy_upstream_throttled_total',
      'Answers of an http(s) upstream asking to slow down (HTTP 429/503, JSON-RPC busy or too many requests)',
      (c) => c.throttled,
    );
    httpTotal('proxy_upstream_retries_total', 'Calls sent again to an http(s) upstream after a throttled or failed attempt', (c) => c.retries);
    httpTotal(
      'proxy_upstream_batches_refused_total',
      'JSON-RPC batches an http(s) upstream refused (smaller batches or single calls from then on)',
      (c) => c.batchesRefused,
    );
  }

  refused(reason: RefusedReason): void {
    this.refusedCalls.inc({ reason });
  }

  closed(reason: ClosedReason): void {
    this.closedSockets.inc({ reason });
  }
}
