// The hottest routes answered before Express sees the request, as warm answers are
// (hotAnswers.ts): a cold `/blocks/{id}` is what an indexer walking the chain asks for
// most, and Express's router and middleware cost it as much as a small block's decoding.
// Only the plainest spellings come here (an id of letters and digits, no trailing slash,
// GET); everything else, errors included, is answered by Express exactly as before.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';

import type { Logger } from '../logger';
import type { RouteRequest } from '../controllers/params';
import { answerError } from './errorReply';
import { statsOf } from './reply';
import type { RequestLog } from './requestLog';

export interface DirectRoute {
  /** The route's name in logs and metrics, as Express writes its path. */
  label: string;
  /** Matches a path (query removed); the path parameters, or undefined for another route. */
  match(path: string): Record<string, string> | undefined;
  answer(req: RouteRequest, http: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** `/blocks/{id}` and its `/v1` alias; `head` is a route of its own. */
const BLOCK_PATH = /^(?:\/v1)?\/blocks\/([0-9A-Za-z]+)$/;

export function blockByIdRoute(answer: DirectRoute['answer']): DirectRoute {
  return {
    label: '/blocks/:blockId',
    match(path) {
      const found = BLOCK_PATH.exec(path);
      return found && found[1] !== 'head' ? { blockId: found[1] } : undefined;
    },
    answer,
  };
}

/** `next`, with `routes` answered first. */
export function directRoutes(routes: DirectRoute[], next: RequestListener, requestLog: RequestLog, logger: Logger): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    if (req.method !== 'GET') return next(req, res);
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    for (const route of routes) {
      const params = route.match(path);
      if (!params) continue;
      const stats = statsOf(res);
      res.once('finish', () => requestLog.record(req, res.statusCode, route.label, stats));
      const request: RouteRequest = { params, query: queryAt < 0 ? {} : parseQuery(url.slice(queryAt + 1)), stats };
      route.answer(request, req, res).catch((error: unknown) => answerError(req, res, error, logger, url));
      return;
    }
    next(req, res);
  };
}
