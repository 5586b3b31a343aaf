// The `/blocks` routes as data: path, the query parameters each one uses, what
// it answers. The server serves them from this table (src/http/routeBinder.ts) and
// the OpenAPI document describes them from it (src/http/openapi.ts).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { BLOCK_SCHEMAS } from './schemas';

export type QueryName =
  | 'eventDocs'
  | 'extrinsicDocs'
  | 'noFees'
  | 'finalized'
  | 'finalizedKey'
  | 'decodedXcmMsgs'
  | 'paraId'
  | 'range'
  | 'useRcBlock'
  | 'useRcBlockFormat'
  | 'useEvmFormat';

export const QUERY_PARAMETERS: Record<QueryName, QueryParameter> = {
  eventDocs: { type: 'boolean', default: false, description: 'Include the docs of every event.' },
  extrinsicDocs: { type: 'boolean', default: false, description: 'Include the docs of every extrinsic call.' },
  noFees: { type: 'boolean', default: false, description: 'Leave out fee information (`noFee` is accepted as an alias); saves the fee queries.' },
  finalized: { type: 'boolean', default: true, description: 'false: the best block instead of the finalized head.' },
  finalizedKey: { type: 'boolean', default: true, description: 'false: leave the `finalized` field out of the answer.' },
  decodedXcmMsgs: { type: 'boolean', default: false, description: 'Add `decodedXcmMsgs`: the XCM messages the block carries, decoded.' },
  paraId: { type: 'integer', description: 'With decodedXcmMsgs: keep only messages this parachain sent (0: all). On para-inclusions: only this parachain.' },
  range: { type: 'string', pattern: '^\\d+-\\d+$', description: 'Heights `a-b`, at most 500 blocks.' },
  useRcBlock: {
    type: 'boolean',
    default: false,
    description: "The id is a relay chain block's: answers this chain's blocks that relay block included, as a list (needs FASTCAR_RELAY_URL).",
  },
  useEvmFormat: {
    type: 'boolean',
    default: false,
    description: 'In the events of `revive` calls, accounts as the 20-byte EVM addresses pallet-revive maps them to.',
  },
  useRcBlockFormat: {
    type: 'string',
    pattern: '^(array|object)$',
    description: 'With useRcBlock: `object` wraps the list with the relay block (`rcBlock`, `parachainDataPerBlock`).',
  },
};

const MALFORMED = 'Malformed id, index, range or parameter value; a height beyond the head';
const NO_SUCH_BLOCK = 'No block with that hash';
const ERRORS = { 400: MALFORMED, 404: NO_SUCH_BLOCK };

export const BLOCK_ROUTES = {
  range: {
    path: '/blocks',
    summary: 'A range of blocks, in order',
    query: ['range', 'eventDocs', 'extrinsicDocs', 'noFees', 'useRcBlock', 'useEvmFormat'],
    required: ['range'],
    response: 'BlockList',
    cacheFact: true,
    errors: ERRORS,
  },
  head: {
    path: '/blocks/head',
    summary: 'The finalized head (or the best block)',
    query: ['eventDocs', 'extrinsicDocs', 'noFees', 'finalized', 'decodedXcmMsgs', 'paraId', 'useRcBlock', 'useRcBlockFormat', 'useEvmFormat'],
    response: 'Block',
    cacheFact: true,
    errors: ERRORS,
  },
  headHeader: {
    path: '/blocks/head/header',
    summary: "The finalized head's header (or the best block's)",
    query: ['finalized', 'useRcBlock', 'useRcBlockFormat'],
    response: 'Header',
    errors: ERRORS,
  },
  block: {
    path: '/blocks/:blockId',
    summary: 'A block by height or hash, with decoded extrinsics, events and fees',
    query: ['eventDocs', 'extrinsicDocs', 'noFees', 'finalizedKey', 'decodedXcmMsgs', 'paraId', 'useRcBlock', 'useRcBlockFormat', 'useEvmFormat'],
    response: 'Block',
    cacheable: true,
    cacheFact: true,
    errors: ERRORS,
  },
  header: { path: '/blocks/:blockId/header', summary: "A block's header", query: ['useRcBlock', 'useRcBlockFormat'], response: 'Header', errors: ERRORS },
  extrinsic: {
    path: '/blocks/:blockId/extrinsics/:extrinsicIndex',
    summary: 'One extrinsic of a block',
    query: ['eventDocs', 'extrinsicDocs', 'noFees', 'useRcBlock', 'useRcBlockFormat', 'useEvmFormat'],
    response: 'ExtrinsicAt',
    errors: ERRORS,
  },
  raw: {
    path: '/blocks/:blockId/extrinsics-raw',
    summary: "A block's header and its extrinsics as SCALE hex",
    query: ['useRcBlock', 'useRcBlockFormat'],
    response: 'RawBlock',
    errors: ERRORS,
  },
  paraInclusions: {
    path: '/blocks/:blockId/para-inclusions',
    summary: 'On a relay chain: the parachain blocks this block included (paraId: one parachain only)',
    query: ['paraId'],
    response: 'ParaInclusions',
    errors: ERRORS,
  },
} as const satisfies Record<string, RouteSpec<QueryName>>;

export type BlockRouteName = keyof typeof BLOCK_ROUTES;

export const BLOCKS_FAMILY: RouteFamily<BlockRouteName, QueryName> = {
  tag: 'blocks',
  formatVersion: 2,
  noRelayBlock: 'useRcBlock is not served on this route: its id is a relay chain block already',
  routes: BLOCK_ROUTES,
  parameters: QUERY_PARAMETERS,
  pathParameters: {
    blockId: { description: 'A height (decimal) or a block hash (0x and 64 hex digits)' },
    extrinsicIndex: { description: 'Index of the extrinsic in the block' },
  },
  schemas: BLOCK_SCHEMAS,
};
