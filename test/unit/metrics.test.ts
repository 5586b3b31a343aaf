// The hot-path metrics are kept by hand (no labels object hashed per request); what
// /metrics shows of them must still be what prom-client itself would print.
import { Counter, Histogram, Registry } from 'prom-client';

import { Metrics } from '../../src/metrics';

/** The lines of one metric in an exposition, in order. */
const linesOf = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(name) || line.includes(` ${name} `));

describe('metrics kept by hand', () => {
  it('print request durations exactly as a prom-client histogram of the same observations', async () => {
    const metrics = new Metrics();
    const reference = new Registry();
    const histogram = new Histogram({
      name: 'fastcar_http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [reference],
    });
    const observations: [string, number, number][] = [
      ['/blocks/:blockId', 200, 0.0004],
      ['/blocks/:blockId', 200, 0.001],
      ['/blocks/:blockId', 200, 0.0011],
      ['/blocks/:blockId', 503, 7],
      ['/blocks/:blockId', 200, 42],
      ['unmatched', 404, 0.003],
      ['/blocks/head', 200, 0.25],
    ];
    for (const [route, status, seconds] of observations) {
      metrics.requests.observe(route, status, seconds);
      histogram.observe({ route, status: String(status) }, seconds);
    }
    const name = 'fastcar_http_request_duration_seconds';
    expect(linesOf(await metrics.registry.metrics(), name)).toEqual(linesOf(await reference.metrics(), name));
  });

  it('print calls by method exactly as a prom-client counter of the same calls', async () => {
    const metrics = new Metrics();
    const reference = new Registry();
    const counter = new Counter({
      name: 'fastcar_rpc_calls_total',
      help: 'JSON-RPC calls made to the node, by method',
      labelNames: ['method'],
      registers: [reference],
    });
    for (const method of ['chain_getBlock', 'state_getStorage', 'chain_getBlock', 'toString', '__proto__']) {
      metrics.rpcCalls.add(method);
      counter.inc({ method });
    }
    const name = 'fastcar_rpc_calls_total';
    expect(linesOf(await metrics.registry.metrics(), name)).toEqual(linesOf(await reference.metrics(), name));
  });
});
