// The log line and the latency metric of every request, whichever path answered
// it (Express, or the warm answers before it).
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';

import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { RequestStats } from '../rpc/requestStats';
import { arrivedAt } from './requestPacer';

/** The URL as the client sent it (Express strips a mounted prefix from `url` while routing). */
function urlOf(req: IncomingMessage & { originalUrl?: string }): string {
  return req.originalUrl ?? req.url ?? '';
}

export class RequestLog {
  constructor(
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  /** `route` as Express names it ('unmatched' for none). */
  record(req: IncomingMessage, status: number, route: string, stats: Pick<RequestStats, 'rpcCalls' | 'waves' | 'cache'>): void {
    const ms = performance.now() - arrivedAt(req);
    this.metrics.requests.observe(route, status, ms / 1000);
    if (!this.logger.isLevelEnabled('info')) return;
    this.logger.info(
      {
        method: req.method,
        url: urlOf(req).slice(0, 300),
        status,
        ms: Math.round(ms * 10) / 10,
        rpcCalls: stats.rpcCalls,
        waves: stats.waves,
        cache: stats.cache ?? 'none',
      },
      'request',
    );
  }
}
