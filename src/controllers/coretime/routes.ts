// The `/coretime` routes as data (see docs/adding-routes.md).
import type { RouteFamily, RouteSpec } from '../../http/routes';
import { anyJson, closed, decimal, ref } from '../../http/schemas';
import { MAX_CORETIME_ENTRIES } from '../../services/coretime/coretimeReads';
import { AT_PARAMETER, AT_SCHEMA } from '../params';

const NOT_FOUND = { 404: 'No block with that hash' };
const RELAY_ERRORS = 'A malformed `at`, a height beyond the head, a runtime without on-demand coretime and core assignments (not a relay chain with coretime)';
const BROKER_ONLY = 'Served by sidecar on a coretime chain (the Broker pallet) only';
const BROKER_ROUTE = {
  query: ['at'],
  response: 'CoretimeBrokerOnly',
  description: 'fastcar answers the relay chain side of coretime: on a relay chain a 400 as sidecar words it, on a coretime chain 501.',
  errors: { 400: `${BROKER_ONLY}: on a relay chain, or a chain without the Broker pallet`, ...NOT_FOUND },
  otherErrors: { 501: 'A coretime chain: not served yet' },
} as const;

export const CORETIME_ROUTES = {
  info: {
    path: '/coretime/info',
    summary: "On a relay chain: the broker's para id, the core assigner pallet's storage version and the on-demand revenue history's length",
    query: ['at'],
    response: 'CoretimeInfo',
    cacheable: true,
    errors: { 400: RELAY_ERRORS, ...NOT_FOUND },
    otherErrors: { 501: 'A coretime chain (the Broker pallet): not served yet' },
  },
  overview: {
    path: '/coretime/overview',
    summary:
      'On a relay chain: each para a core works for, with its lifecycle and the core\u2019s descriptor (current work, queue), and the cores\u2019 schedules',
    description: `The paras and schedules are listed in pages (at most ${MAX_CORETIME_ENTRIES} each; more is a 400, never cut).`,
    query: ['at'],
    response: 'CoretimeOverview',
    cacheable: true,
    errors: { 400: RELAY_ERRORS, ...NOT_FOUND },
    otherErrors: { 501: 'A coretime chain (the Broker pallet): not served yet' },
  },
  leases: { path: '/coretime/leases', summary: `The Broker pallet's leases. ${BROKER_ONLY}`, ...BROKER_ROUTE },
  regions: { path: '/coretime/regions', summary: `The Broker pallet's regions. ${BROKER_ONLY}`, ...BROKER_ROUTE },
  renewals: { path: '/coretime/renewals', summary: `The Broker pallet's potential renewals. ${BROKER_ONLY}`, ...BROKER_ROUTE },
  reservations: { path: '/coretime/reservations', summary: `The Broker pallet's reservations. ${BROKER_ONLY}`, ...BROKER_ROUTE },
} as const satisfies Record<string, RouteSpec<'at'>>;

export const CORETIME_FAMILY: RouteFamily<keyof typeof CORETIME_ROUTES, 'at'> = {
  tag: 'coretime',
  routes: CORETIME_ROUTES,
  parameters: { at: AT_PARAMETER },
  pathParameters: {},
  schemas: {
    At: AT_SCHEMA,
    CoretimeInfo: closed({ at: ref('At'), brokerId: decimal, palletVersion: decimal, maxHistoricalRevenue: decimal }),
    CoretimeOverview: closed({
      at: ref('At'),
      cores: {
        type: 'array',
        items: closed({
          paraId: decimal,
          type: { type: ['string', 'null'], description: "The para's lifecycle" },
          info: closed({
            currentWork: closed({
              assignments: {
                type: 'array',
                items: closed({ isPool: { type: 'boolean' }, isTask: { type: 'boolean' }, ratio: decimal, remaining: decimal, task: { type: 'string' } }),
              },
              endHint: { type: ['string', 'null'], pattern: '^[0-9]+$' },
              pos: decimal,
              step: decimal,
            }),
            queue: closed({ first: decimal, last: decimal }),
          }),
        }),
      },
      coreSchedules: { type: 'array', items: { type: 'array', description: '`[storage key, schedule]`', items: anyJson } },
    }),
    CoretimeBrokerOnly: { ...anyJson, description: 'Never answered: see the errors' },
  },
};
