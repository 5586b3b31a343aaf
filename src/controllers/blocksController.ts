// HTTP for `/blocks`: parse, ask the service, shape headers. Nothing here
// talks to the node.
import { Router, type Request, type Response } from 'express';

import { queryKey, withFinalizedTag, type BlockAnswer } from '../services/blockAnswer';
import type { BlocksService } from '../services/blocksService';
import { BLOCK_ROUTES as ROUTES } from './blockRoutes';
import { blockQuery, parseBlockId, parseFlags as parseFlagsOf, parseIndex, parseParaId, parseRange, unusedParams } from './params';
import { sendJson, streamJsonArray } from '../http/sendJson';

/** Bumped whenever the JSON we produce for the same block changes, so old ETags stop matching. */
const FORMAT_VERSION = 1;

type Handler = (req: Request, res: Response) => Promise<void>;

function blockEtag(answer: BlockAnswer, variant: string): string {
  return `"${answer.hash}-${variant}-${FORMAT_VERSION}"`;
}

function paramOf(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

async function* mapAsync<T, U>(items: AsyncIterable<T>, map: (item: T) => U): AsyncGenerator<U> {
  for await (const item of items) yield map(item);
}

export interface BlocksRouterOptions {
  /** Reject query parameters a route does not use, instead of ignoring them as sidecar does. */
  strictParams: boolean;
  /** Told how many parameters a request had that its route ignored. */
  onIgnoredParams?: (count: number) => void;
  /** Told of every finalized block answer sent, with the URL it answered (kept for the warm path). */
  onImmutableAnswer?: (url: string, json: string, etag: string) => void;
}

/** Names as they may appear in a response header: plain characters, a few, short. */
function headerList(names: string[]): string {
  return names
    .slice(0, 10)
    .map((name) => name.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40))
    .filter(Boolean)
    .join(', ');
}

export function blocksRouter(service: BlocksService, options: BlocksRouterOptions = { strictParams: false }): Router {
  const router = Router();

  /** The route's flags; what it does not use is named in X-Ignored-Params (or, strict, a 400). */
  const parseFlags = <K extends string>(req: Request, allowed: readonly K[]): Record<K, boolean | undefined> => {
    const flags = parseFlagsOf(req, allowed, options.strictParams);
    const ignored = unusedParams(req, allowed);
    if (ignored.length > 0) {
      const names = headerList(ignored);
      if (names) req.res?.setHeader('X-Ignored-Params', names);
      options.onIgnoredParams?.(ignored.length);
    }
    return flags;
  };

  const resolveId = async (raw: string) => {
    const id = parseBlockId(raw);
    if (id.kind === 'beyond') throw await service.beyondHead();
    return id;
  };

  const getBlocks: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.range.query);
    const numbers = parseRange(req.query.range);
    const query = blockQuery(flags);
    const stop = new AbortController();
    res.once('close', () => stop.abort());
    const blocks = service.range(numbers, query, stop.signal);
    await streamJsonArray(res, mapAsync(blocks, (answer) => withFinalizedTag(answer, true)));
  };

  const getHead: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.head.query);
    const finalizedOnly = flags.finalized !== false;
    const query = blockQuery(flags, parseParaId(req.query.paraId));
    const hash = await service.headHash(finalizedOnly);
    const answer = await service.blockAt(hash, query, false);
    // The head moves: never let a client cache what "head" means.
    await sendJson(res, withFinalizedTag({ ...answer, finalized: finalizedOnly || answer.finalized }, true), false);
  };

  const getBlock: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.block.query);
    const query = blockQuery(flags, parseParaId(req.query.paraId));
    const id = await resolveId(paramOf(req, 'blockId'));
    const answer = await service.block(id, query);
    const includeTag = flags.finalizedKey !== false;
    const variant = `${queryKey(query)}${Number(includeTag)}${query.decodedXcmMsgs ? `-${query.paraId ?? 0}` : ''}`;
    const json = withFinalizedTag(answer, includeTag);
    const etag = blockEtag(answer, variant);
    await sendJson(res, json, answer.immutable, etag);
    // Only answers the URL alone determines: none that named parameters this route ignores.
    if (answer.immutable && !res.hasHeader('X-Ignored-Params')) options.onImmutableAnswer?.(req.originalUrl, json, etag);
  };

  const getHeadHeader: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.headHeader.query);
    await sendJson(res, await service.header(flags.finalized === false ? 'best' : 'finalized'), false);
  };

  const getHeader: Handler = async (req, res) => {
    parseFlags(req, ROUTES.header.query);
    const id = await resolveId(paramOf(req, 'blockId'));
    await sendJson(res, await service.header(id), false);
  };

  const getExtrinsic: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.extrinsic.query);
    const id = await resolveId(paramOf(req, 'blockId'));
    const index = parseIndex(paramOf(req, 'extrinsicIndex'));
    await sendJson(res, await service.extrinsic(id, index, blockQuery(flags)), false);
  };

  const getRaw: Handler = async (req, res) => {
    parseFlags(req, ROUTES.raw.query);
    const id = await resolveId(paramOf(req, 'blockId'));
    await sendJson(res, await service.raw(id), false);
  };

  const handlers: Record<keyof typeof ROUTES, Handler> = {
    range: getBlocks,
    head: getHead,
    headHeader: getHeadHeader,
    block: getBlock,
    header: getHeader,
    extrinsic: getExtrinsic,
    raw: getRaw,
  };
  // In the table's order: fixed paths (head) before the ones with a parameter.
  for (const [name, route] of Object.entries(ROUTES)) router.get(route.path, handlers[name as keyof typeof ROUTES]);
  return router;
}
