// HTTP for `/blocks`: each route reads its parameters, asks the services, and
// returns one answer value; the writer (src/http/reply.ts) sends it. Nothing here
// talks to the node. Routes whose id may name a relay chain block instead
// (useRcBlock=true) declare their own answer and each included block's, and one
// wrapper picks between them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router, type Request, type Response } from 'express';

import { answerBytes, queryKey, withFinalizedTag, type BlockAnswer, type BlockId, type BlockQuery } from '../../services/blocks/blockAnswer';
import type { ChainServices } from '../../services/chain';
import { withEvmAddresses } from '../../services/blocks/evmFormat';
import type { Hex } from '../../rpc/nodeClient';
import type { RelayLink } from '../../services/relayLink';
import { RELAY_SETTING } from '../../config';
import { badRequest } from '../../errors';
import { isStream, respond, statsOf, type Answer, type CacheFact, type Reply, type StreamItem } from '../../http/reply';
import { BLOCK_ROUTES as ROUTES } from './routes';
import { blockQuery, canonicalBlockPath, headerList, parseBlockId, parseFlags as parseFlagsOf, parseIndex, parseParaId, parseRange, parseRcBlockFormat, unusedParams, type RouteRequest } from '../params';
import { combinedCache, relayAnswer, withRelayFields, type Piece } from './relayAnswer';

/** Bumped whenever the JSON we produce for the same block changes, so old ETags stop matching. */
const FORMAT_VERSION = 1;

export type RouteName = keyof typeof ROUTES;
/** A route's answer to a request. */
export type RouteHandler = (req: RouteRequest) => Promise<Answer>;
type Flags = Record<string, boolean | undefined>;
type RelayId = BlockId | 'best' | 'finalized';

export interface BlocksRouterOptions {
  /** Reject query parameters a route does not use, instead of ignoring them as sidecar does. */
  strictParams: boolean;
  /** Told how many parameters a request had that its route ignored. */
  onIgnoredParams?: (count: number) => void;
  /** Told of every finalized block answer sent (kept for the warm path under its `hotKey`). */
  onImmutableAnswer?: (reply: Reply) => void;
  /** Where this chain's routes are mounted, apart from the `/v1` alias: '' or '/rc'. */
  mount?: string;
  /**
   * What `useRcBlock=true` reads: the link to the relay chain, 'unconfigured' when this
   * chain could have one but none was set, 'relay' on the relay chain's own routes.
   */
  relay?: RelayLink | 'unconfigured' | 'relay';
}

/**
 * A route whose id may name a relay chain block instead (useRcBlock=true). `parse` reads
 * what the route needs before the relay parameters are checked (so a request with
 * several faults gets the same 400 as before); then either `own` answers on this
 * chain, or `included` answers each block the relay block `relayId` included.
 */
interface RelayableRoute<P> {
  parse(req: RouteRequest, flags: Flags): P;
  own(req: RouteRequest, parsed: P, services: ChainServices): Promise<Reply>;
  relayId(req: RouteRequest, parsed: P): RelayId;
  included(parsed: P, services: ChainServices): (hash: Hex) => Promise<Piece>;
}

function paramOf(req: RouteRequest, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

/** The block a path id names; a height past any block is the service's to refuse (it names the head). */
function blockIdOf(raw: string): BlockId {
  const id = parseBlockId(raw);
  return id.kind === 'beyond' ? { kind: 'number', number: id.number } : id;
}

/** A relay chain block id from the path. */
function relayIdOf(raw: string): BlockId {
  const id = parseBlockId(raw);
  if (id.kind === 'beyond') throw badRequest('The relay chain block number is too large.');
  return id;
}

const byHash = (hash: Hex): BlockId => ({ kind: 'hash', hash });
const cacheOf = (answer: Pick<BlockAnswer, 'fromCache'>): CacheFact => (answer.fromCache ? 'hit' : 'miss');

/** With useEvmFormat=true, revive calls' events in EVM form; else the answer as it is. */
const evmFormatter = (flags: Flags) => (flags.useEvmFormat ? withEvmAddresses : (json: string) => json);

/** The relay chain's routes when no relay node is set: each answers what is missing. */
export function unconfiguredRelayRouter(): Router {
  const router = Router();
  router.get(/^\/blocks(\/.*)?$/, () => {
    throw badRequest(`The relay chain routes need a relay chain node: set ${RELAY_SETTING}`);
  });
  return router;
}

/** Each `/blocks` route's handler, by name (served by Express, and the hottest ones directly too). */
export function blockHandlers(chain: ChainServices, options: BlocksRouterOptions = { strictParams: false }): Record<RouteName, RouteHandler> {
  const mount = options.mount ?? '';

  /** The route's flags, and what it does not use (named in X-Ignored-Params, or, strict, a 400). */
  const readFlags = (req: RouteRequest, route: RouteName): { flags: Flags; ignoredParams?: string } => {
    const allowed: readonly string[] = ROUTES[route].query;
    if (req.query.useRcBlock === 'true' && !allowed.includes('useRcBlock')) {
      throw badRequest('useRcBlock is not served on this route: its id is a relay chain block already');
    }
    const flags = parseFlagsOf(req, allowed, options.strictParams);
    const ignored = unusedParams(req, allowed);
    if (ignored.length === 0) return { flags };
    options.onIgnoredParams?.(ignored.length);
    return { flags, ignoredParams: headerList(ignored) };
  };

  /** The relay link for a request with useRcBlock=true (undefined without it), or the 400 saying why there is none. */
  const relayFor = (flags: Flags, req: RouteRequest, formats = true): { link: RelayLink; format: 'array' | 'object' } | undefined => {
    if (!formats && req.query.useRcBlockFormat !== undefined) throw badRequest('useRcBlockFormat is not used on a range: the answer is one list');
    const format = parseRcBlockFormat(req.query.useRcBlockFormat, flags.useRcBlock === true);
    if (flags.useRcBlock !== true) return undefined;
    if (options.relay === 'relay' || options.relay === undefined) throw badRequest('useRcBlock parameter is only supported for parachain (Asset Hub) endpoints');
    if (options.relay === 'unconfigured') throw badRequest(`useRcBlock parameter requires a relay chain node: set ${RELAY_SETTING}`);
    return { link: options.relay, format };
  };

  /** A relayable route as a handler: its own answer, or with useRcBlock=true the included blocks' (never kept by clients: the relay block may not be final). */
  const relayable =
    <P>(name: RouteName, route: RelayableRoute<P>) =>
    async (req: RouteRequest): Promise<Reply> => {
      const { flags, ignoredParams } = readFlags(req, name);
      const parsed = route.parse(req, flags);
      const relay = relayFor(flags, req);
      const services = chain.forRequest(req.stats);
      if (!relay) return { ...(await route.own(req, parsed, services)), ignoredParams };
      const link = relay.link.forRequest(req.stats);
      const { relayBlock, items } = await link.eachIncluded(route.relayId(req, parsed), route.included(parsed, services));
      return { body: relayAnswer(relayBlock, items, relay.format), cache: combinedCache(items), ignoredParams };
    };

  /** A block's answer as one relay block's list item (the relay fields are added to it there). */
  const includedBlock = ({ blocks }: ChainServices, query: BlockQuery, includeTag: boolean, evm: (json: string) => string) => async (hash: Hex): Promise<Piece> => {
    const answer = await blocks.blockAt(hash, query, true);
    return { json: evm(withFinalizedTag(answer, includeTag)), cache: cacheOf(answer) };
  };

  const range = async (req: RouteRequest): Promise<Answer> => {
    const { flags, ignoredParams } = readFlags(req, 'range');
    const evm = evmFormatter(flags);
    const numbers = parseRange(req.query.range);
    const query = blockQuery(flags);
    const relay = relayFor(flags, req, false);
    const services = chain.forRequest(req.stats);
    if (relay) {
      // Relay chain heights: each one's included blocks in order, relay blocks with none left out (as sidecar).
      const read = includedBlock(services, query, true, evm);
      const link = relay.link.forRequest(req.stats);
      return {
        ignoredParams,
        async *items(signal: AbortSignal): AsyncGenerator<StreamItem> {
          for (const number of numbers) {
            if (signal.aborted) return;
            const { relayBlock, items } = await link.eachIncluded({ kind: 'number', number }, read);
            for (const item of items) yield { json: withRelayFields(item, relayBlock), cache: item.value.cache };
          }
        },
      };
    }
    return {
      ignoredParams,
      async *items(signal: AbortSignal): AsyncGenerator<StreamItem> {
        for await (const answer of services.blocks.range(numbers, query, signal)) yield { json: evm(withFinalizedTag(answer, true)), cache: cacheOf(answer) };
      },
    };
  };

  const head = relayable('head', {
    parse: (req, flags) => ({ finalizedOnly: flags.finalized !== false, query: blockQuery(flags, parseParaId(req.query.paraId)), evm: evmFormatter(flags) }),
    async own(_req, { finalizedOnly, query, evm }, { blocks, ids }) {
      const answer = await blocks.blockAt(await ids.headHash(finalizedOnly), query, false);
      // The head moves: never let a client cache what "head" means.
      return { body: evm(withFinalizedTag({ ...answer, finalized: finalizedOnly || answer.finalized }, true)), cache: cacheOf(answer) };
    },
    relayId: (_req, { finalizedOnly }) => (finalizedOnly ? 'finalized' : 'best'),
    included: ({ query, evm }, services) => includedBlock(services, query, true, evm),
  });

  const block = relayable('block', {
    parse: (req, flags) => ({
      flags,
      query: blockQuery(flags, parseParaId(req.query.paraId)),
      includeTag: flags.finalizedKey !== false,
      evm: evmFormatter(flags),
    }),
    async own(req, { flags, query, includeTag, evm }, { blocks }) {
      const id = blockIdOf(paramOf(req, 'blockId'));
      const answer = await blocks.block(id, query);
      const useEvmFormat = flags.useEvmFormat === true;
      const body = useEvmFormat ? Buffer.from(evm(withFinalizedTag(answer, includeTag))) : answerBytes(answer, includeTag);
      if (!answer.immutable) return { body, cache: cacheOf(answer) };
      const variant = `${queryKey(query)}${Number(includeTag)}${query.decodedXcmMsgs ? `-${query.paraId ?? 0}` : ''}${useEvmFormat ? '-evm' : ''}`;
      return {
        body,
        cache: cacheOf(answer),
        etag: `"${answer.hash}-${variant}-${FORMAT_VERSION}"`,
        // Kept warm under its one canonical spelling, whichever spelling asked for it.
        hotKey: canonicalBlockPath(mount, id, query, { includeTag, useEvmFormat }),
      };
    },
    relayId: (req) => relayIdOf(paramOf(req, 'blockId')),
    included: ({ query, includeTag, evm }, services) => includedBlock(services, query, includeTag, evm),
  });

  const headHeader = relayable('headHeader', {
    parse: (_req, flags) => (flags.finalized === false ? 'best' : 'finalized'),
    own: async (_req, which, { reads }) => ({ body: await reads.header(which) }),
    relayId: (_req, which) => which,
    included: (_parsed, { reads }) => async (hash) => ({ json: await reads.header(byHash(hash)) }),
  });

  const header = relayable('header', {
    parse: () => undefined,
    own: async (req, _parsed, { reads }) => ({ body: await reads.header(blockIdOf(paramOf(req, 'blockId'))) }),
    relayId: (req) => relayIdOf(paramOf(req, 'blockId')),
    included: (_parsed, { reads }) => async (hash) => ({ json: await reads.header(byHash(hash)) }),
  });

  const extrinsicAt = async ({ blocks }: ChainServices, id: BlockId, index: number, query: BlockQuery, evm: (json: string) => string): Promise<Piece> => {
    const found = await blocks.extrinsic(id, index, query);
    if (!found) throw badRequest('Requested `extrinsicIndex` does not exist');
    return { json: evm(found.json), cache: cacheOf(found) };
  };

  const extrinsic = relayable('extrinsic', {
    parse: (req, flags) => ({ index: parseIndex(paramOf(req, 'extrinsicIndex')), query: blockQuery(flags), evm: evmFormatter(flags) }),
    async own(req, { index, query, evm }, services) {
      const { json, cache } = await extrinsicAt(services, blockIdOf(paramOf(req, 'blockId')), index, query, evm);
      return { body: json, cache };
    },
    relayId: (req) => relayIdOf(paramOf(req, 'blockId')),
    included: ({ index, query, evm }, services) => (hash) => extrinsicAt(services, byHash(hash), index, query, evm),
  });

  const raw = relayable('raw', {
    parse: () => undefined,
    own: async (req, _parsed, { reads }) => ({ body: await reads.raw(blockIdOf(paramOf(req, 'blockId'))) }),
    relayId: (req) => relayIdOf(paramOf(req, 'blockId')),
    included: (_parsed, { reads }) => async (hash) => ({ json: await reads.raw(byHash(hash)) }),
  });

  const paraInclusions = async (req: RouteRequest): Promise<Reply> => {
    const { ignoredParams } = readFlags(req, 'paraInclusions');
    const paraId = parseParaId(req.query.paraId);
    const found = await chain.forRequest(req.stats).reads.paraInclusions(blockIdOf(paramOf(req, 'blockId')));
    if (found.inclusions.length === 0) throw badRequest(`Block ${found.number} on chain ${found.specName} doesn't have the paraInclusion event`);
    const inclusions = paraId === undefined ? found.inclusions : found.inclusions.filter((inclusion) => Number(inclusion.paraId) === paraId);
    return { body: JSON.stringify({ at: { hash: found.hash, height: String(found.number) }, inclusions }), ignoredParams };
  };

  return { range, head, headHeader, block, header, extrinsic, raw, paraInclusions };
}

/** Sends a route's answer; a finalized block answer is then offered to the warm path. */
export async function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: Answer, options: Pick<BlocksRouterOptions, 'onImmutableAnswer'>): Promise<void> {
  await respond(req, res, answer);
  if (!isStream(answer) && answer.hotKey) options.onImmutableAnswer?.(answer);
}

/** The `/blocks` routes as an Express router. */
export function blocksRouter(handlers: Record<RouteName, RouteHandler>, options: Pick<BlocksRouterOptions, 'onImmutableAnswer'>): Router {
  const router = Router();
  // In the table's order: fixed paths (head) before the ones with a parameter.
  for (const [name, route] of Object.entries(ROUTES)) {
    const handler = handlers[name as RouteName];
    router.get(route.path, async (req: Request, res: Response) => {
      await sendAnswer(req, res, await handler({ params: req.params, query: req.query, stats: statsOf(res) }), options);
    });
  }
  return router;
}
