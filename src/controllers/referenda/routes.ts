// The `/pallets/on-going-referenda` route as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { anyJson, closed, perRelayBlock, ref } from '../../http/schemas';
import { MAX_REFERENDA } from '../../services/referenda/ongoingReferenda';
import { AT_PARAMETER, AT_SCHEMA } from '../params';
import { RELAY_BLOCK_PARAMETERS } from '../relayAnswer';

export type ReferendaQueryName = 'at' | 'useRcBlock' | 'useRcBlockFormat';

export const REFERENDA_ROUTES = {
  ongoingReferenda: {
    path: '/pallets/on-going-referenda',
    summary: 'The referenda being decided on the root and whitelisted-caller tracks (0 and 1), at a block',
    description: `Every referendum of the map is read to find them (at most ${MAX_REFERENDA}; more is a 400, never cut).`,
    query: ['at', 'useRcBlock', 'useRcBlockFormat'],
    response: 'OngoingReferenda',
    cacheable: true,
    errors: { 400: 'A malformed `at` or flag, a height beyond the head, a runtime without the Referenda pallet', 404: 'No block with that hash' },
  },
} as const satisfies Record<string, RouteSpec<ReferendaQueryName>>;

export const REFERENDA_FAMILY: RouteFamily<keyof typeof REFERENDA_ROUTES, ReferendaQueryName> = {
  tag: 'governance',
  formatVersion: 1,
  routes: REFERENDA_ROUTES,
  parameters: {
    at: AT_PARAMETER,
    ...RELAY_BLOCK_PARAMETERS,
  } satisfies Record<ReferendaQueryName, QueryParameter>,
  pathParameters: {},
  schemas: {
    At: AT_SCHEMA,
    ...perRelayBlock('OngoingReferenda', { at: ref('At'), referenda: { type: 'array', items: ref('OngoingReferendum') } }, ['at', 'referenda']),
    OngoingReferendum: closed({
      id: { type: 'string', description: "The referendum's index, as polkadot.js writes it for people (`1,234`)" },
      decisionDeposit: anyJson,
      enactment: anyJson,
      submitted: { type: 'string' },
      deciding: anyJson,
    }),
  },
};
