// Prometheus metrics. What the hot path bumps is a plain prom-client object made
// once; figures kept elsewhere (cache counters, decode tallies, queue depths) are
// handed in as readers and read at scrape time: running totals as counters, levels
// as gauges.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'fastcar_' });
  }

  /** A counter the caller increments. */
  counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }

  /** A running total kept elsewhere (it only grows), read at scrape time. */
  total(name: string, help: string, read: () => number): void {
    new Counter({ name, help, registers: [this.registry], collect() { this.reset(); this.inc(read()); } });
  }

  /** Running totals kept elsewhere, one for each value of `label`, read at scrape time. */
  totalsBy(name: string, help: string, label: string, read: () => Record<string, number>): void {
    new Counter({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [value, count] of Object.entries(read())) this.inc({ [label]: value }, count);
      },
    });
  }

  /** A level (it rises and falls), read at scrape time. */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({ name, help, registers: [this.registry], collect() { this.set(read()); } });
  }
}
