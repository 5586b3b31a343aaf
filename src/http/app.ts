// The Express application: request accounting and logging, routes, and the
// one place where errors become HTTP answers.
import express, { type NextFunction, type Request, type Response } from 'express';

import { ApiError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { NodeThrottledError, NodeTimeoutError, NodeUnavailableError } from '../rpc/nodeClient';
import { arrivedAt } from './requestPacer';
import { newRequestStats, runWithStats } from '../rpc/requestStats';

export interface AppParts {
  logger: Logger;
  metrics: Metrics;
  /** Mounted in order; a path prefix mounts a router under it (`/rc`, `/v1`). */
  routers: (express.Router | [prefix: string, router: express.Router])[];
  health: () => Promise<{ status: number; body: unknown }>;
}

const RETRY_AFTER_SECONDS = 5;

export function createApp({ logger, metrics, routers, health }: AppParts): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');

  app.use((req: Request, res: Response, next: NextFunction) => {
    const stats = newRequestStats();
    const started = arrivedAt(req);
    // The counts travel with the answer, so a client (or a test) sees what it cost.
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: Parameters<typeof writeHead>) {
      if (!this.headersSent) {
        this.setHeader('X-Rpc-Calls', String(stats.rpcCalls));
        this.setHeader('X-Rpc-Waves', String(stats.waves));
        if (stats.cache) this.setHeader('X-Cache', stats.cache);
      }
      return writeHead.apply(this, args);
    } as typeof writeHead;
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      metrics.requests.observe({ route, status: String(res.statusCode) }, ms / 1000);
      logger.info(
        { method: req.method, url: req.originalUrl.slice(0, 300), status: res.statusCode, ms: Math.round(ms * 10) / 10, rpcCalls: stats.rpcCalls, waves: stats.waves, cache: stats.cache ?? 'none' },
        'request',
      );
    });
    runWithStats(stats, () => next());
  });

  app.get('/health', (_req, res, next) => {
    health()
      .then(({ status, body }) => res.status(status).setHeader('Cache-Control', 'no-store').json(body))
      .catch(next);
  });
  app.get('/metrics', (_req, res, next) => {
    metrics.registry
      .metrics()
      .then((text) => res.type(metrics.registry.contentType).send(text))
      .catch(next);
  });
  for (const entry of routers) {
    if (Array.isArray(entry)) app.use(entry[0], entry[1]);
    else app.use(entry);
  }

  app.use((req: Request, res: Response) => {
    res.status(404).setHeader('Cache-Control', 'no-store').json({ code: 404, message: `No route for ${req.method} ${req.path.slice(0, 200)}` });
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, message } = describe(error);
    if (status >= 500 && !(error instanceof NodeUnavailableError) && !(error instanceof NodeTimeoutError)) {
      logger.error({ err: error, url: req.originalUrl.slice(0, 300) }, 'request failed');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (status === 503) res.setHeader('Retry-After', String(error instanceof NodeThrottledError ? error.retryAfterSeconds : RETRY_AFTER_SECONDS));
    res.setHeader('Cache-Control', 'no-store');
    res.status(status).json({ code: status, message });
  });
  return app;
}

/** Never a stack trace, never an internal path: a status and a sentence. */
function describe(error: unknown): { status: number; message: string } {
  if (error instanceof ApiError) return { status: error.status, message: error.message };
  if (error instanceof NodeThrottledError) return { status: 503, message: 'The node provider is limiting requests; retry shortly.' };
  if (error instanceof NodeUnavailableError) return { status: 503, message: 'The node is unavailable; retry shortly.' };
  if (error instanceof NodeTimeoutError) return { status: 504, message: 'The node did not answer in time.' };
  const status = (error as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, message: status === 400 ? 'Malformed request.' : 'Request rejected.' };
  }
  return { status: 500, message: 'Internal Error' };
}
