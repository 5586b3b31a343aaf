// Prometheus metrics. What the hot path bumps is a plain prom-client object made
// once; figures kept elsewhere (cache counters, decode tallies, queue depths) are
// handed in as readers and read at scrape time: running totals as counters, levels
// as gauges.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** Counts by name, bumped on the hot path as a plain map entry, read at scrape time. */
export class CountsByName {
  readonly counts: Record<string, number> = Object.create(null) as Record<string, number>;

  add(name: string): void {
    this.counts[name] = (this.counts[name] ?? 0) + 1;
  }
}

/** One line of a metric's exposition, as prom-client's registry prints it. */
interface ExposedValue {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

interface Series {
  labels: { route: string; status: string };
  /** Observations per bucket (not cumulative); the last is past every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * Request durations by route and status, as a Prometheus histogram. Every request
 * observes one, so the series is found by one string key and the bucket by a short
 * scan, where prom-client hashes a labels object per observation; the exposition is
 * built at scrape time.
 */
export class RequestDurations {
  readonly name = 'fastcar_http_request_duration_seconds';
  readonly help = 'HTTP request duration by route and status';
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly bounds = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  private readonly series = new Map<string, Series>();

  observe(route: string, status: number, seconds: number): void {
    const key = `${status} ${route}`;
    let series = this.series.get(key);
    if (!series) {
      series = { labels: { route, status: String(status) }, buckets: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]) bucket++;
    series.buckets[bucket]++;
    series.sum += seconds;
    series.count++;
  }

  get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: ExposedValue[] }> {
    const values: ExposedValue[] = [];
    for (const { labels, buckets, sum, count } of this.series.values()) {
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += buckets[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...labels }, value: below });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    this.series.clear();
  }
}

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new RequestDurations();
  /** JSON-RPC calls made to the node, by method. */
  readonly rpcCalls = new CountsByName();
  /** JSON-RPC calls that failed or timed out, by method. */
  readonly rpcErrors = new CountsByName();
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
    this.registry.registerMetric(this.requests as unknown as Parameters<Registry['registerMetric']>[0]);
    this.totalsBy('fastcar_rpc_calls_total', 'JSON-RPC calls made to the node, by method', 'method', () => this.rpcCalls.counts);
    this.totalsBy('fastcar_rpc_errors_total', 'JSON-RPC calls that failed or timed out, by method', 'method', () => this.rpcErrors.counts);
  }

  /** A counter the caller increments. */
  counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }

  /** A running total kept elsewhere (it only grows), read at scrape time. */
  total(name: string, help: string, read: () => number): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
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
