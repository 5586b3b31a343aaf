// The routes that follow the chain for clients (finalized blocks as a stream, and
// where an extrinsic landed), as data in the manner of the blocks family's table.
import type { HeaderParameter, QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { closed, decimal, hash, ref } from '../../http/schemas';
import { QUERY_PARAMETERS, type QueryName } from '../blocks/routes';

export type FollowQueryName = Exclude<QueryName, 'range' | 'finalized' | 'useRcBlock' | 'useRcBlockFormat'> | 'from' | 'to';

export const FOLLOW_PARAMETERS: Record<FollowQueryName, QueryParameter> = {
  eventDocs: QUERY_PARAMETERS.eventDocs,
  extrinsicDocs: QUERY_PARAMETERS.extrinsicDocs,
  noFees: QUERY_PARAMETERS.noFees,
  finalizedKey: QUERY_PARAMETERS.finalizedKey,
  decodedXcmMsgs: QUERY_PARAMETERS.decodedXcmMsgs,
  paraId: { type: 'integer', description: 'With decodedXcmMsgs: keep only messages this parachain sent (0: all).' },
  useEvmFormat: QUERY_PARAMETERS.useEvmFormat,
  from: { type: 'integer', description: 'The first height wanted.' },
  to: { type: 'integer', description: 'The last height searched (with `from`; at most 500 heights, all finalized).' },
};

const LAST_EVENT_ID: HeaderParameter = {
  name: 'Last-Event-ID',
  description:
    'The id (height) of the last event received: the stream resumes with the height after it. Sent by EventSource when it reconnects; wins over `from`.',
  schema: { type: 'integer', minimum: 0 },
};

const STREAM_ERRORS = { 400: 'A malformed `from`, Last-Event-ID or flag' };
const STREAM_UNAVAILABLE = 'The node is unavailable, or this instance has FASTCAR_MAX_STREAMS streams open';

export const FOLLOW_ROUTES = {
  blockStream: {
    path: '/blocks/stream',
    summary: 'Finalized blocks as they come, as Server-Sent Events',
    description:
      'One event per finalized block, in height order, with no gaps and no repeats: `id` is the height, `data` exactly what `/blocks/{id}` answers ' +
      'for the same options. Starts at the finalized head; `from` starts at that height instead (a height beyond the head waits for it), and ' +
      '`Last-Event-ID` (what EventSource sends when it reconnects) after that one. Past heights are sent as fast as the client reads them, then ' +
      'the stream goes live without a gap. Also sent: `node-unavailable` and `node-available` events while the node is away and when it is back ' +
      '(nothing is skipped), a comment line every 15 s on an idle stream, and a last `resume` event `{from, reason, message}` before the server ' +
      'ends a stream (a client that falls too far behind, or a shutdown): reconnect with `from` set to its `from`.',
    query: ['eventDocs', 'extrinsicDocs', 'noFees', 'finalizedKey', 'decodedXcmMsgs', 'paraId', 'useEvmFormat', 'from'],
    response: 'Block',
    kind: 'events',
    headers: [LAST_EVENT_ID],
    errors: STREAM_ERRORS,
    unavailable: STREAM_UNAVAILABLE,
  },
  headerStream: {
    path: '/blocks/head/header/stream',
    summary: 'Finalized headers as they come, as Server-Sent Events',
    description:
      "As `/blocks/stream`, with each event's `data` exactly what `/blocks/{id}/header` answers: for clients that only need to know a block is final.",
    query: ['from'],
    response: 'Header',
    kind: 'events',
    headers: [LAST_EVENT_ID],
    errors: STREAM_ERRORS,
    unavailable: STREAM_UNAVAILABLE,
  },
  extrinsicByHash: {
    path: '/extrinsics/:extrinsicHash',
    summary: 'Where an extrinsic landed: its block and index, and the extrinsic itself',
    description:
      'Searches the newest finalized blocks (FASTCAR_EXTRINSIC_INDEX_BLOCKS of them, about a day by default), or heights `from`-`to` ' +
      '(both given, at most 500, all finalized). `extrinsic` is what `/blocks/{blockNumber}/extrinsics/{index}` shows as `extrinsics` ' +
      'for the same options. 404 names the heights searched.',
    query: ['eventDocs', 'extrinsicDocs', 'noFees', 'useEvmFormat', 'from', 'to'],
    response: 'ExtrinsicFound',
    tag: 'extrinsics',
    errors: {
      400: 'A malformed hash, `from`/`to` or flag; a window too long or past the finalized head',
      404: 'Not in the heights searched (the message names them)',
    },
  },
} as const satisfies Record<string, RouteSpec<FollowQueryName>>;

export type FollowRouteName = keyof typeof FOLLOW_ROUTES;

export const FOLLOW_FAMILY: RouteFamily<FollowRouteName, FollowQueryName> = {
  tag: 'blocks',
  formatVersion: 1,
  noRelayBlock: "useRcBlock is not served on this route: it follows this chain's own finalized blocks",
  routes: FOLLOW_ROUTES,
  parameters: FOLLOW_PARAMETERS,
  pathParameters: { extrinsicHash: { description: 'The extrinsic hash (0x and 64 hex digits)', schema: hash } },
  schemas: {
    ExtrinsicFound: closed({ blockNumber: decimal, blockHash: hash, index: decimal, extrinsic: ref('Extrinsic') }),
    /** The data of a `resume` event, the last one a stream the server ends sends. */
    StreamResume: closed({
      from: { type: 'integer', description: 'The first height this client has not received: reconnect with from set to it (or Last-Event-ID one below).' },
      reason: { enum: ['lagging', 'stalled', 'closing'] },
      message: { type: 'string' },
    }),
    /** The data of `node-unavailable` and `node-available` events. */
    StreamNotice: closed({ message: { type: 'string' } }),
  },
};
