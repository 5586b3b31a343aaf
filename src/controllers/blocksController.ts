// HTTP for `/blocks`: parse, ask the service, shape headers. Nothing here
// talks to the node.
import { Router, type Request, type Response } from 'express';

import { answerBytes, queryKey, withFinalizedTag, type BlockAnswer, type BlockId, type BlockQuery } from '../services/blockAnswer';
import type { BlocksService } from '../services/blocksService';
import { withEvmAddresses } from '../services/evmFormat';
import type { Hex } from '../rpc/nodeClient';
import type { Included, RelayBlockRef, RelayLink } from '../services/relayLink';
import { RELAY_SETTING } from '../config';
import { badRequest } from '../errors';
import { BLOCK_ROUTES as ROUTES } from './blockRoutes';
import { blockQuery, canonicalBlockPath, parseBlockId, parseFlags as parseFlagsOf, parseIndex, parseParaId, parseRange, parseRcBlockFormat, unusedParams } from './params';
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
  /** Told of every finalized block answer sent, with its canonical URL (kept for the warm path under it). */
  onImmutableAnswer?: (url: string, body: Buffer, etag: string) => void;
  /** Where this chain's routes are mounted, apart from the `/v1` alias: '' or '/rc'. */
  mount?: string;
  /**
   * What `useRcBlock=true` reads: the link to the relay chain, 'unconfigured' when this
   * chain could have one but none was set, 'relay' on the relay chain's own routes.
   */
  relay?: RelayLink | 'unconfigured' | 'relay';
}

/** One included block's answer as sidecar lists it under useRcBlock: the answer, then the relay block it came with. */
function withRelayFields(json: string, relayBlock: RelayBlockRef, ahTimestamp: string | undefined): string {
  const timestamp = ahTimestamp === undefined ? '' : `,"ahTimestamp":${JSON.stringify(ahTimestamp)}`;
  return `${json.slice(0, -1)},"rcBlockHash":"${relayBlock.hash}","rcBlockNumber":"${relayBlock.number}"${timestamp}}`;
}

function relayAnswer(relayBlock: RelayBlockRef, items: Included<string>[], format: 'array' | 'object'): string {
  const list = `[${items.map(({ value, ahTimestamp }) => withRelayFields(value, relayBlock, ahTimestamp)).join(',')}]`;
  if (format === 'array') return list;
  const rcBlock = JSON.stringify({ hash: relayBlock.hash, parentHash: relayBlock.parentHash, number: String(relayBlock.number) });
  return `{"rcBlock":${rcBlock},"parachainDataPerBlock":${list}}`;
}

/** A relay chain block id from the path: the relay chain is asked, so a height is checked against its head there. */
function relayIdOf(raw: string): BlockId {
  const id = parseBlockId(raw);
  if (id.kind === 'beyond') throw badRequest('The relay chain block number is too large.');
  return id;
}

/** Names as they may appear in a response header: plain characters, a few, short. */
function headerList(names: string[]): string {
  return names
    .slice(0, 10)
    .map((name) => name.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40))
    .filter(Boolean)
    .join(', ');
}

/** The relay chain's routes when no relay node is set: each answers what is missing. */
export function unconfiguredRelayRouter(): Router {
  const router = Router();
  router.get(/^\/blocks(\/.*)?$/, () => {
    throw badRequest(`The relay chain routes need a relay chain node: set ${RELAY_SETTING}`);
  });
  return router;
}

export function blocksRouter(service: BlocksService, options: BlocksRouterOptions = { strictParams: false }): Router {
  const router = Router();

  /** The route's flags; what it does not use is named in X-Ignored-Params (or, strict, a 400). */
  const parseFlags = <K extends string>(req: Request, allowed: readonly K[]): Record<K, boolean | undefined> => {
    if (req.query.useRcBlock === 'true' && !allowed.includes('useRcBlock' as K)) {
      throw badRequest('useRcBlock is not served on this route: its id is a relay chain block already');
    }
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

  /** With useEvmFormat=true, revive calls' events in EVM form; else the answer as it is. */
  const evmFormatter = (flags: { useEvmFormat?: boolean }) => (flags.useEvmFormat ? withEvmAddresses : (json: string) => json);

  /** The relay link for a request with useRcBlock=true (undefined without it), or the 400 saying why there is none. */
  const relayFor = (flags: { useRcBlock?: boolean }, req: Request, formats = true): { link: RelayLink; format: 'array' | 'object' } | undefined => {
    if (!formats && req.query.useRcBlockFormat !== undefined) throw badRequest('useRcBlockFormat is not used on a range: the answer is one list');
    const format = parseRcBlockFormat(req.query.useRcBlockFormat, flags.useRcBlock === true);
    if (flags.useRcBlock !== true) return undefined;
    if (options.relay === 'relay' || options.relay === undefined) throw badRequest('useRcBlock parameter is only supported for parachain (Asset Hub) endpoints');
    if (options.relay === 'unconfigured') throw badRequest(`useRcBlock parameter requires a relay chain node: set ${RELAY_SETTING}`);
    return { link: options.relay, format };
  };

  /** Answers `read` of each parachain block the relay block `relayId` included, as sidecar lists them. */
  const sendIncluded = async (res: Response, relay: { link: RelayLink; format: 'array' | 'object' }, relayId: BlockId | 'best' | 'finalized', read: (hash: Hex) => Promise<string>) => {
    const { relayBlock, items } = await relay.link.eachIncluded(relayId, read);
    await sendJson(res, relayAnswer(relayBlock, items, relay.format), false);
  };
  const byHash = (hash: Hex): BlockId => ({ kind: 'hash', hash });
  /** An included block's answer as one relay block's list item (the relay fields are added to it there). */
  const includedBlock = (query: BlockQuery, includeTag: boolean, evm: (json: string) => string) => async (hash: Hex) =>
    evm(withFinalizedTag(await service.blockAt(hash, query, true), includeTag));

  const getBlocks: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.range.query);
    const evm = evmFormatter(flags);
    const numbers = parseRange(req.query.range);
    const query = blockQuery(flags);
    const relay = relayFor(flags, req, false);
    const stop = new AbortController();
    res.once('close', () => stop.abort());
    if (relay) {
      // Relay chain heights: each one's included blocks in order, relay blocks with none left out (as sidecar).
      const { link } = relay;
      const read = includedBlock(query, true, evm);
      const items = async function* () {
        for (const number of numbers) {
          if (stop.signal.aborted) return;
          const { relayBlock, items: included } = await link.eachIncluded({ kind: 'number', number }, read);
          for (const { value, ahTimestamp } of included) yield withRelayFields(value, relayBlock, ahTimestamp);
        }
      };
      await streamJsonArray(res, items());
      return;
    }
    const blocks = service.range(numbers, query, stop.signal);
    await streamJsonArray(res, mapAsync(blocks, (answer) => evm(withFinalizedTag(answer, true))));
  };

  const getHead: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.head.query);
    const finalizedOnly = flags.finalized !== false;
    const query = blockQuery(flags, parseParaId(req.query.paraId));
    const relay = relayFor(flags, req);
    const evm = evmFormatter(flags);
    if (relay) {
      return sendIncluded(res, relay, finalizedOnly ? 'finalized' : 'best', includedBlock(query, true, evm));
    }
    const hash = await service.headHash(finalizedOnly);
    const answer = await service.blockAt(hash, query, false);
    // The head moves: never let a client cache what "head" means.
    await sendJson(res, evm(withFinalizedTag({ ...answer, finalized: finalizedOnly || answer.finalized }, true)), false);
  };

  const getBlock: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.block.query);
    const query = blockQuery(flags, parseParaId(req.query.paraId));
    const includeTag = flags.finalizedKey !== false;
    const relay = relayFor(flags, req);
    const evm = evmFormatter(flags);
    if (relay) {
      // The id is a relay chain block's; what it included may change until it is finalized: never kept by clients.
      return sendIncluded(res, relay, relayIdOf(paramOf(req, 'blockId')), includedBlock(query, includeTag, evm));
    }
    const id = await resolveId(paramOf(req, 'blockId'));
    const answer = await service.block(id, query);
    const variant = `${queryKey(query)}${Number(includeTag)}${query.decodedXcmMsgs ? `-${query.paraId ?? 0}` : ''}${flags.useEvmFormat ? '-evm' : ''}`;
    const body = flags.useEvmFormat ? Buffer.from(evm(withFinalizedTag(answer, includeTag))) : answerBytes(answer, includeTag);
    const etag = blockEtag(answer, variant);
    await sendJson(res, body, answer.immutable, etag);
    // Kept under its one canonical spelling, whichever spelling asked for it.
    if (answer.immutable) options.onImmutableAnswer?.(canonicalBlockPath(options.mount ?? '', id, query, { includeTag, useEvmFormat: flags.useEvmFormat === true }), body, etag);
  };

  const getHeadHeader: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.headHeader.query);
    const relay = relayFor(flags, req);
    if (relay) return sendIncluded(res, relay, flags.finalized === false ? 'best' : 'finalized', (hash) => service.header(byHash(hash)));
    await sendJson(res, await service.header(flags.finalized === false ? 'best' : 'finalized'), false);
  };

  const getHeader: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.header.query);
    const relay = relayFor(flags, req);
    if (relay) return sendIncluded(res, relay, relayIdOf(paramOf(req, 'blockId')), (hash) => service.header(byHash(hash)));
    const id = await resolveId(paramOf(req, 'blockId'));
    await sendJson(res, await service.header(id), false);
  };

  const getExtrinsic: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.extrinsic.query);
    const index = parseIndex(paramOf(req, 'extrinsicIndex'));
    const relay = relayFor(flags, req);
    const evm = evmFormatter(flags);
    if (relay) return sendIncluded(res, relay, relayIdOf(paramOf(req, 'blockId')), async (hash) => evm(await service.extrinsic(byHash(hash), index, blockQuery(flags))));
    const id = await resolveId(paramOf(req, 'blockId'));
    await sendJson(res, evm(await service.extrinsic(id, index, blockQuery(flags))), false);
  };

  const getRaw: Handler = async (req, res) => {
    const flags = parseFlags(req, ROUTES.raw.query);
    const relay = relayFor(flags, req);
    if (relay) return sendIncluded(res, relay, relayIdOf(paramOf(req, 'blockId')), (hash) => service.raw(byHash(hash)));
    const id = await resolveId(paramOf(req, 'blockId'));
    await sendJson(res, await service.raw(id), false);
  };

  const getParaInclusions: Handler = async (req, res) => {
    parseFlags(req, ROUTES.paraInclusions.query);
    const paraId = parseParaId(req.query.paraId);
    const id = await resolveId(paramOf(req, 'blockId'));
    const found = await service.paraInclusions(id);
    if (found.inclusions.length === 0) throw badRequest(`Block ${found.number} on chain ${found.specName} doesn't have the paraInclusion event`);
    const inclusions = paraId === undefined ? found.inclusions : found.inclusions.filter((inclusion) => Number(inclusion.paraId) === paraId);
    await sendJson(res, JSON.stringify({ at: { hash: found.hash, height: String(found.number) }, inclusions }), false);
  };

  const handlers: Record<keyof typeof ROUTES, Handler> = {
    range: getBlocks,
    head: getHead,
    headHeader: getHeadHeader,
    block: getBlock,
    header: getHeader,
    extrinsic: getExtrinsic,
    raw: getRaw,
    paraInclusions: getParaInclusions,
  };
  // In the table's order: fixed paths (head) before the ones with a parameter.
  for (const [name, route] of Object.entries(ROUTES)) router.get(route.path, handlers[name as keyof typeof ROUTES]);
  return router;
}
