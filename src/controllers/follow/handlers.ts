// HTTP for following the chain: finalized blocks (or headers) as a stream, and an
// extrinsic found by hash. Parses and checks everything before a stream opens or
// a block is read, so a bad request costs nothing; each route returns one answer
// value, which the writer (src/http/reply.ts) sends.
import { badRequest, notFound } from '../../errors';
import type { EventStreamReply, Reply } from '../../http/reply';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import { SseSink } from '../../http/sse';
import type { Hex } from '../../rpc/nodeClient';
import type { BlocksService } from '../../services/blocks/blocksService';
import type { BlockStreams, StreamOptions } from '../../services/follow/blockStream';
import type { ExtrinsicPlace } from '../../cache/extrinsicWindow';
import type { ExtrinsicIndex } from '../../services/follow/extrinsicIndex';
import type { FinalizedFeed } from '../../services/follow/finalizedFeed';
import { MAX_BLOCKS_PER_REQUEST } from '../params';
import { parseParaId } from '../blocks/params';
import { sentExtrinsic, variantOf } from '../../services/blocks/answerVariant';
import type { FollowRouteName } from './routes';

const U32_MAX = 0xffff_ffff;

export interface FollowParts {
  streams: BlockStreams;
  index: ExtrinsicIndex;
  blocks: Pick<BlocksService, 'extrinsic'>;
  feed: Pick<FinalizedFeed, 'currentHead'>;
}

type Handler = (req: RouteRequest) => Promise<Reply | EventStreamReply>;

/** A block height in a parameter or header: a decimal whole number that fits a block number. */
function heightOf(raw: unknown, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw) || Number(raw) > U32_MAX) {
    throw badRequest(`${name} must be a block height: a decimal whole number from 0 to ${U32_MAX}.`);
  }
  return Number(raw);
}

/** Where a stream starts: after Last-Event-ID (a reconnect), else at `from`; undefined: at the head. */
function startOf(req: RouteRequest): number | undefined {
  const lastEventId = heightOf(req.headers['last-event-id'], 'Last-Event-ID');
  const from = heightOf(req.query.from, 'from');
  return lastEventId !== undefined ? lastEventId + 1 : from;
}

function extrinsicHashOf(raw: string): Hex {
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) throw badRequest(`Cannot look up extrinsic ${raw.slice(0, 80)}: an extrinsic hash is 0x followed by 64 hex digits.`);
  return raw.toLowerCase() as Hex;
}

/** Each follow route's handler, by name. */
export function followHandlers(parts: FollowParts): FamilyHandlers<FollowRouteName> {
  const { streams, index, blocks, feed } = parts;

  const openStream = async (req: RouteRequest, streamOptions: StreamOptions): Promise<EventStreamReply> => {
    const start = startOf(req);
    streams.admit();
    const head = await streams.defaultStart();
    const from = start ?? head;
    return {
      events(res) {
        const sink = new SseSink(res);
        sink.open(from);
        streams.subscribe(streamOptions, from, sink);
      },
    };
  };

  const getBlockStream: Handler = async (req) => {
    return openStream(req, { kind: 'blocks', variant: variantOf(req.flags(), parseParaId(req.query.paraId)) });
  };

  const getHeaderStream: Handler = async (req) => {
    return openStream(req, { kind: 'headers' });
  };

  /** The heights searched when the index is asked, as a 404 names them. */
  const indexWindow = (): string => {
    if (index.size <= 0) return 'no blocks: the extrinsic index is off (FASTCAR_EXTRINSIC_INDEX_BLOCKS=0)';
    const { low, high, floor } = index.coverage();
    if (high < 0) return 'no blocks yet: the extrinsic index is starting';
    const filling = low > floor ? `; still filling back to ${floor}` : '';
    return `finalized blocks ${low}-${high} (the newest ${index.size} are indexed${filling})`;
  };

  const getExtrinsic: Handler = async (req) => {
    const hash = extrinsicHashOf(typeof req.params.extrinsicHash === 'string' ? req.params.extrinsicHash : '');
    const from = heightOf(req.query.from, 'from');
    const to = heightOf(req.query.to, 'to');
    if ((from === undefined) !== (to === undefined)) throw badRequest('from and to go together: both to search heights from-to, neither to search the index.');
    let place: ExtrinsicPlace | undefined;
    let searched: string;
    if (from !== undefined && to !== undefined) {
      if (from > to) throw badRequest(`from (${from}) must not be greater than to (${to}).`);
      if (to - from + 1 > MAX_BLOCKS_PER_REQUEST)
        throw badRequest(`from-to spans ${to - from + 1} blocks; at most ${MAX_BLOCKS_PER_REQUEST} are searched at once.`);
      const head = await feed.currentHead();
      if (to > head) throw badRequest(`to (${to}) is beyond the finalized head (${head}); only finalized blocks are searched.`);
      place = await index.search(hash, from, to, req.clientGone());
      searched = `finalized blocks ${from}-${to}`;
    } else {
      place = index.find(hash);
      searched = `${indexWindow()}; search other heights with ?from=&to=`;
    }
    if (!place) throw notFound(`Extrinsic ${hash} was not found in ${searched}.`);
    const variant = variantOf(req.flags());
    const found = await blocks.extrinsic({ kind: 'number', number: place.height }, place.index, variant);
    // The index names only extrinsics it read from the finalized block itself.
    if (!found) throw notFound(`Extrinsic ${hash} was not found in finalized block ${place.height}.`);
    const shown = JSON.parse(sentExtrinsic(found.json, variant)) as { at: { height: string; hash: string }; extrinsics: unknown };
    const body = { blockNumber: shown.at.height, blockHash: shown.at.hash, index: String(place.index), extrinsic: shown.extrinsics };
    return { body: JSON.stringify(body), cache: found.fromCache ? 'hit' : 'miss' };
  };

  return { blockStream: getBlockStream, headerStream: getHeaderStream, extrinsicByHash: getExtrinsic };
}
