// The Express application: health, docs, the route families for the spellings the
// binder leaves to Express (routeBinder.ts, which also logs and counts every
// request), and the answers for unknown paths and for errors. Every answer is
// written by the one writer (reply.ts).
import express, { type NextFunction, type Request, type Response } from 'express';

import type { Logger } from '../logger';
import { answerError } from './errorReply';
import { respond } from './reply';

export interface AppParts {
  logger: Logger;
  /** Mounted in order; a path prefix mounts a router under it (`/rc`, `/v1`). */
  routers: (express.Router | [prefix: string, router: express.Router])[];
  health: () => Promise<{ status: number; body: unknown }>;
}

export function createApp({ logger, routers, health }: AppParts): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');

  app.get('/health', async (req, res) => {
    const { status, body } = await health();
    await respond(req, res, { status, body: JSON.stringify(body) });
  });
  for (const entry of routers) {
    if (Array.isArray(entry)) app.use(entry[0], entry[1]);
    else app.use(entry);
  }

  app.use(async (req: Request, res: Response) => {
    await respond(req, res, { status: 404, body: JSON.stringify({ code: 404, message: `No route for ${req.method} ${req.path.slice(0, 200)}` }) });
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => answerError(req, res, error, logger, req.originalUrl));
  return app;
}
