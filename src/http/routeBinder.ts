// The one way in for every route of every family. A request is logged and counted
// here, whichever path answers it; then, in order:
//   1. a finalized answer already sent once is written again as kept (warm answers);
//   2. a plainly spelled path of a family's route (its exact path, no trailing slash,
//      nothing percent-encoded) goes straight to the route's handler: Express's router
//      and middleware cost a cold small block as much as decoding it does;
//   3. everything else goes to the Express app, where the same families are mounted
//      through the same handlers (any other spelling Express accepts), beside health,
//      docs, 404s and errors.
// So a concern that applies to every request wraps this listener (rate limit, pacing,
// timeouts: see server.ts), never `app.use`, which the first two paths never reach.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { Router, type Request, type Response } from 'express';

import type { Logger } from '../logger';
import { answerError } from './errorReply';
import { readJsonBody } from './requestBody';
import { isStream, respond, sendReply, statsOf, type CallCounts, type Answer, type EventStreamReply, type Reply } from './reply';
import type { RequestLog } from './requestLog';
import type { FamilyHandlers, Flags, QueryReader, QueryReading, RouteFamily, RouteHandler, RouteRequest, RouteSpec } from './routes';

/** Finalized answers kept as wire bytes, by the URL that asks for them. */
export interface WarmAnswers {
  lookup(url: string): Reply | undefined;
  /** Offered every answer sent with a `hotKey`. */
  remember(reply: Reply): void;
}

export interface BinderParts {
  requestLog: RequestLog;
  logger: Logger;
  /** How every route's query is read against its table (its flags, what it ignores, the 400s). */
  readQuery: QueryReader;
  warm?: WarmAnswers;
}

/** A family's handlers, or how to get them once they can exist (a relay chain connecting later throws until then). */
export type HandlersSource = FamilyHandlers | (() => FamilyHandlers);

interface BoundRoute {
  /** The route's name in logs and metrics: its path as the table writes it. */
  label: string;
  mount: string;
  spec: RouteSpec;
  method: 'GET' | 'POST';
  /** The path as a plain request spells it, mount included. */
  pattern: RegExp;
  names: string[];
  handler(): RouteHandler;
  readQuery(query: RouteRequest['query']): QueryReading;
}

/** Label of the warm answers in logs and metrics: they are block answers by id. */
const WARM_LABEL = '/blocks/:blockId';
/** polkadot-rest-api's prefix: every route is served under it too. */
const ALIAS = '/v1';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(mount: string, path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = `${mount}${path}`
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return escaped(segment);
      names.push(segment.slice(1));
      return '([^/%]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names };
}

/** A request as a handler sees it: its query read against the route's table once, when first asked. */
class BoundRequest implements RouteRequest {
  body: unknown = undefined;
  readonly headers: RouteRequest['headers'];
  readonly stats: RouteRequest['stats'];
  private reading: QueryReading | undefined;
  private gone: AbortController | undefined;

  constructor(
    readonly params: RouteRequest['params'],
    readonly query: RouteRequest['query'],
    req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly readQuery: (query: RouteRequest['query']) => QueryReading,
  ) {
    this.headers = req.headers;
    this.stats = statsOf(res);
  }

  flags(): Flags {
    return this.read().flags;
  }

  /** What the route does not use of the query (read now if the handler never asked for its flags). */
  ignoredParams(): string | undefined {
    return this.read().ignoredParams;
  }

  clientGone(): AbortSignal {
    if (!this.gone) {
      const controller = new AbortController();
      this.gone = controller;
      this.res.once('close', () => controller.abort());
    }
    return this.gone.signal;
  }

  private read(): QueryReading {
    this.reading ??= this.readQuery(this.query);
    return this.reading;
  }
}

export class RouteBinder {
  private readonly routes: BoundRoute[] = [];
  private readonly mounts: { mount: string; router: Router }[] = [];

  constructor(private readonly parts: BinderParts) {}

  /** Serves `family` under `mount` ('' or '/rc') and under `/v1` + `mount`; families added first are matched first. */
  add(mount: string, family: RouteFamily, source: HandlersSource): void {
    let made: FamilyHandlers | undefined = typeof source === 'function' ? undefined : source;
    const handlers = (): FamilyHandlers => (made ??= (source as () => FamilyHandlers)());
    const router = Router();
    for (const [name, spec] of Object.entries(family.routes)) {
      const handler = () => handlers()[name];
      const method = spec.method ?? 'GET';
      const readQuery = (query: RouteRequest['query']) => this.parts.readQuery(query, spec, family);
      const route: BoundRoute = { label: spec.path, mount, spec, method, ...compile(mount, spec.path), handler, readQuery };
      this.routes.push(route);
      const serve = (req: Request, res: Response) => this.serve(route, new BoundRequest(req.params, req.query, req, res, readQuery), req, res);
      if (method === 'POST') router.post(spec.path, serve);
      else router.get(spec.path, serve);
    }
    this.mounts.push({ mount, router });
  }

  /** Every route bound, in the order requests are matched against them (each also served under `/v1`). */
  served(): { mount: string; spec: RouteSpec }[] {
    return this.routes.map(({ mount, spec }) => ({ mount, spec }));
  }

  /** The families for the Express app, as [prefix, router], in the order they were added, then again under `/v1`. */
  expressRouters(): [prefix: string, router: Router][] {
    const plain = this.mounts.map(({ mount, router }): [string, Router] => [mount || '/', router]);
    return [...plain, ...this.mounts.map(({ mount, router }): [string, Router] => [`${ALIAS}${mount}`, router])];
  }

  /** The listener every request enters by; `app` answers what no plain route matches. */
  listener(app: RequestListener): RequestListener {
    const { requestLog, warm } = this.parts;
    return (req, res) => {
      const url = req.url ?? '';
      const isGet = req.method === 'GET';
      const method = isGet || req.method === 'POST' ? req.method : undefined;
      const kept = isGet && warm ? warm.lookup(url) : undefined;
      if (kept) {
        const counts: CallCounts = { rpcCalls: 0, waves: 0 };
        try {
          const sent = sendReply(req, res, kept, counts);
          if (typeof sent === 'number') requestLog.record(req, sent, WARM_LABEL, counts);
          else sent.then((status) => requestLog.record(req, status, WARM_LABEL, counts)).catch(() => res.destroy());
        } catch {
          res.destroy();
        }
        return;
      }
      const stats = statsOf(res);
      let label: string | undefined;
      res.once('finish', () => requestLog.record(req, res.statusCode, label ?? (req as { route?: { path?: string } }).route?.path ?? 'unmatched', stats));
      const queryAt = url.indexOf('?');
      const found = method ? this.match(method, queryAt < 0 ? url : url.slice(0, queryAt)) : undefined;
      if (!found) return app(req, res);
      label = found.route.label;
      const request = new BoundRequest(found.params, queryAt < 0 ? {} : parseQuery(url.slice(queryAt + 1)), req, res, found.route.readQuery);
      this.serve(found.route, request, req, res);
    };
  }

  private match(method: string, path: string): { route: BoundRoute; params: Record<string, string> } | undefined {
    const local = path.startsWith(`${ALIAS}/`) ? path.slice(ALIAS.length) : path;
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(local);
      if (!found) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = found[i + 1];
      });
      return { route, params };
    }
    return undefined;
  }

  /**
   * Runs a route's handler and writes its answer (or its error); a finalized answer is then offered to the warm answers.
   * A POST route's body is read first, whole and bounded: the handler starts only once it has all of it.
   * The answer names the query parameters the route ignored (X-Ignored-Params).
   */
  private serve(route: BoundRoute, request: BoundRequest, req: IncomingMessage, res: ServerResponse): void {
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
    const fail = (error: unknown) => answerError(req, res, error, this.parts.logger, url);
    let answering: Promise<Answer | EventStreamReply>;
    try {
      const handler = route.handler();
      const run = () => {
        // An unserved route's 501 comes first, whatever its query.
        if (!route.spec.ownChecksFirst && route.spec.unserved === undefined) request.flags();
        return handler(request);
      };
      answering =
        route.method === 'POST'
          ? readJsonBody(req, res).then((body) => {
              request.body = body;
              return run();
            })
          : run();
    } catch (error) {
      fail(error);
      return;
    }
    answering
      .then(async (made) => {
        const ignoredParams = request.ignoredParams();
        const answer = ignoredParams === undefined ? made : { ...made, ignoredParams };
        await respond(req, res, answer);
        if (!isStream(answer) && 'body' in answer && answer.hotKey) this.parts.warm?.remember(answer);
      })
      .catch(fail);
  }
}
