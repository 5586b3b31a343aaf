// Prometheus metrics on a port of their own (as sidecar serves them), bound to
// loopback by default: rendering them costs milliseconds of CPU, so they are
// for the scraper, never for whoever reaches the public port.
import { createServer, type Server } from 'node:http';

import type { Metrics } from '../metrics';
import { closeServer, listen, type HttpTimeouts, timeoutOptions } from './listen';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(metrics: Metrics, host: string, port: number, timeouts: HttpTimeouts): Promise<MetricsServer> {
  const server: Server = createServer(timeoutOptions(timeouts), (req, res) => {
    const path = req.url?.split('?', 1)[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      const body = JSON.stringify({ code: 404, message: 'Only GET /metrics is served on this port.' });
      res
        .writeHead(404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' })
        .end(body);
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  const url = await listen(server, host, port);
  return {
    url,
    async close() {
      await closeServer(server);
    },
  };
}
