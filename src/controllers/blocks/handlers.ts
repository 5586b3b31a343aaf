// HTTP for `/blocks`: each route reads its parameters, asks the services, and
// returns one answer value; the writer (src/http/reply.ts) sends it. Nothing here
// talks to the node. Routes whose id may name a relay chain block instead
// (useRcBlock=true) declare their own answer and each included block's, and one
// wrapper picks between them.

import type { BlockAnswer } from '../../services/blocks/blockAnswer';
import type { BlockId } from '../../services/shared/at/blockIds';
import { canonicalBlockPath, sentBytes, sentExtrinsic, sentJson, variantKey, variantOf, type AnswerVariant } from '../../services/blocks/answerVariant';
import type { ChainServices } from '../../services/chain';
import type { Hex } from '../../rpc/nodeClient';
import type { RelayLink } from '../../services/relayLink';
import { badRequest } from '../../errors';
import type { Answer, CacheFact, Reply, StreamItem } from '../../http/reply';
import type { FamilyHandlers, Flags, RouteRequest } from '../../http/routes';
import { parseBlockId } from '../params';
import { parseIndex, parseParaId, parseRange } from './params';
import { BLOCKS_FAMILY, type BlockRouteName as RouteName } from './routes';
import { combinedCache, relayAnswer, relayChoiceOf, withRelayFields, type Piece, type RelayOption } from '../relayAnswer';

type RelayId = BlockId | 'best' | 'finalized';

export interface BlockHandlerOptions {
  /** Where this chain's routes are mounted, apart from the `/v1` alias: '' or '/rc'. */
  mount?: string;
  /**
   * What `useRcBlock=true` reads: the link to the relay chain, 'unconfigured' when this
   * chain could have one but none was set, 'relay' on the relay chain's own routes.
   */
  relay?: RelayOption;
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

/** Each `/blocks` route's handler, by name. */
export function blockHandlers(chain: ChainServices, options: BlockHandlerOptions = {}): FamilyHandlers<RouteName> {
  const mount = options.mount ?? '';

  /** The relay link for a request with useRcBlock=true (undefined without it), or the 400 saying why there is none. */
  const relayFor = (req: RouteRequest, formats = true): { link: RelayLink; format: 'array' | 'object' } | undefined => {
    if (!formats && req.query.useRcBlockFormat !== undefined) throw badRequest('useRcBlockFormat is not used on a range: the answer is one list');
    const { relayLink, format } = relayChoiceOf(req, options.relay);
    return relayLink && { link: relayLink, format };
  };

  /** A relayable route as a handler: its own answer, or with useRcBlock=true the included blocks' (never kept by clients: the relay block may not be final). */
  const relayable =
    <P>(route: RelayableRoute<P>) =>
    async (req: RouteRequest): Promise<Reply> => {
      const flags = req.flags();
      const parsed = route.parse(req, flags);
      const relay = relayFor(req);
      const services = chain.forRequest(req.stats);
      if (!relay) return route.own(req, parsed, services);
      const link = relay.link.forRequest(req.stats);
      const { relayBlock, items } = await link.eachIncluded(route.relayId(req, parsed), route.included(parsed, services));
      return { body: relayAnswer(relayBlock, items, relay.format), cache: combinedCache(items) };
    };

  /** A block's answer as one relay block's list item (the relay fields are added to it there). */
  const includedBlock =
    ({ blocks }: ChainServices, variant: AnswerVariant) =>
    async (hash: Hex): Promise<Piece> => {
      const answer = await blocks.blockAt(hash, variant, true);
      return { json: sentJson(answer, variant), cache: cacheOf(answer) };
    };

  const range = async (req: RouteRequest): Promise<Answer> => {
    const flags = req.flags();
    const numbers = parseRange(req.query.range);
    const variant = variantOf(flags);
    const relay = relayFor(req, false);
    const services = chain.forRequest(req.stats);
    if (relay) {
      // Relay chain heights: each one's included blocks in order, relay blocks with none left out (as sidecar).
      const read = includedBlock(services, variant);
      const link = relay.link.forRequest(req.stats);
      return {
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
      async *items(signal: AbortSignal): AsyncGenerator<StreamItem> {
        for await (const answer of services.blocks.range(numbers, variant, signal)) yield { json: sentJson(answer, variant), cache: cacheOf(answer) };
      },
    };
  };

  const head = relayable({
    parse: (req, flags) => ({ finalizedOnly: flags.finalized !== false, variant: variantOf(flags, parseParaId(req.query.paraId)) }),
    async own(_req, { finalizedOnly, variant }, { blocks }) {
      const answer = await blocks.head(finalizedOnly, variant);
      // The head moves: never let a client cache what "head" means.
      return { body: sentJson({ ...answer, finalized: finalizedOnly || answer.finalized }, variant), cache: cacheOf(answer) };
    },
    relayId: (_req, { finalizedOnly }) => (finalizedOnly ? 'finalized' : 'best'),
    included: ({ variant }, services) => includedBlock(services, variant),
  });

  const block = relayable({
    parse: (req, flags) => variantOf(flags, parseParaId(req.query.paraId)),
    async own(req, variant, { blocks }) {
      const id = blockIdOf(paramOf(req, 'blockId'));
      const answer = await blocks.block(id, variant);
      const body = sentBytes(answer, variant);
      if (!answer.immutable) return { body, cache: cacheOf(answer) };
      return {
        body,
        cache: cacheOf(answer),
        etag: `"${answer.hash}-${variantKey(variant)}-${BLOCKS_FAMILY.formatVersion}"`,
        // Kept warm under its one canonical spelling, whichever spelling asked for it.
        hotKey: canonicalBlockPath(mount, id, variant),
      };
    },
    relayId: (req) => relayIdOf(paramOf(req, 'blockId')),
    included: (variant, services) => includedBlock(services, variant),
  });

  const headHeader = relayable({
    parse: (_req, flags) => (flags.finalized === false ? 'best' : 'finalized'),
    own: async (_req, which, { reads }) => ({ body: await reads.header(which) }),
    relayId: (_req, which) => which,
    included:
      (_parsed, { reads }) =>
      async (hash) => ({ json: await reads.header(byHash(hash)) }),
  });

  const header = relayable({
    parse: () => undefined,
    own: async (req, _parsed, { reads }) => ({ body: await reads.header(blockIdOf(paramOf(req, 'blockId'))) }),
    relayId: (req) => relayIdOf(paramOf(req, 'blockId')),
    included:
      (_parsed, { reads }) =>
      async (hash) => ({ json: await reads.header(byHash(hash)) }),
  });

  const extrinsicAt = async ({ blocks }: ChainServices, id: BlockId, index: number, variant: AnswerVariant): Promise<Piece> => {
    const found = await blocks.extrinsic(id, index, variant);
    if (!found) throw badRequest('Requested `extrinsicIndex` does not exist');
    return { json: sentExtrinsic(found.json, variant), cache: cacheOf(found) };
  };

  const extrinsic = relayable({
    parse: (req, flags) => ({ index: parseIndex(paramOf(req, 'extrinsicIndex')), variant: variantOf(flags) }),
    async own(req, { index, variant }, services) {
      const { json, cache } = await extrinsicAt(services, blockIdOf(paramOf(req, 'blockId')), index, variant);
      return { body: json, cache };
    },
    relayId: (req) => relayIdOf(paramOf(req, 'blockId')),
    included:
      ({ index, variant }, services) =>
      (hash) =>
        extrinsicAt(services, byHash(hash), index, variant),
  });

  const raw = relayable({
    parse: () => undefined,
    own: async (req, _parsed, { reads }) => ({ body: await reads.raw(blockIdOf(paramOf(req, 'blockId'))) }),
    relayId: (req) => relayIdOf(paramOf(req, 'blockId')),
    included:
      (_parsed, { reads }) =>
      async (hash) => ({ json: await reads.raw(byHash(hash)) }),
  });

  const paraInclusions = async (req: RouteRequest): Promise<Reply> => {
    const paraId = parseParaId(req.query.paraId);
    const found = await chain.forRequest(req.stats).reads.paraInclusions(blockIdOf(paramOf(req, 'blockId')));
    if (found.inclusions.length === 0) throw badRequest(`Block ${found.number} on chain ${found.specName} doesn't have the paraInclusion event`);
    const inclusions = paraId === undefined ? found.inclusions : found.inclusions.filter((inclusion) => Number(inclusion.paraId) === paraId);
    return { body: JSON.stringify({ at: { hash: found.hash, height: String(found.number) }, inclusions }) };
  };

  return { range, head, headHeader, block, header, extrinsic, raw, paraInclusions };
}
