// The `/coretime` routes as data (see docs/adding-routes.md).
import type { RouteFamily, RouteSpec } from '../../http/routes';
import { anyJson, closed, decimal, hex, ref } from '../../http/schemas';
import { MAX_BROKER_ENTRIES } from '../../services/coretime/brokerReads';
import { MAX_CORETIME_ENTRIES } from '../../services/coretime/coretimeReads';
import { AT_PARAMETER, AT_SCHEMA } from '../params';

const NOT_FOUND = { 404: 'No block with that hash' };
const RELAY_ERRORS =
  'A malformed `at`, a height beyond the head, a runtime without the coretime pallets (neither a relay chain with coretime nor a coretime chain)';
const BROKER_ERRORS = 'A malformed `at`, a height beyond the head, a relay chain (served on coretime chains only), a runtime without the Broker pallet';
const LISTED = `Maps are listed whole, in pages, up to ${MAX_BROKER_ENTRIES} entries (more is a 400, never cut).`;
const brokerRoute = (path: string, summary: string, response: string) =>
  ({ path, summary, description: LISTED, query: ['at'], response, cacheable: true, errors: { 400: BROKER_ERRORS, ...NOT_FOUND } }) as const;

export const CORETIME_ROUTES = {
  info: {
    path: '/coretime/info',
    summary:
      "On a relay chain: the broker's para id, the core assigner pallet's storage version and the on-demand revenue history's length. " +
      "On a coretime chain: the Broker's configuration, the region in use, the cores on sale with the price now, and the sale's phases",
    description:
      'On a coretime chain the price is read at the relay block the chain last built on (the Broker\u2019s clock), and the phases are in ' +
      'timeslices; a Broker not yet configured, or with no sale yet, answers null for what it lacks (sidecar 20 answers 500).',
    query: ['at'],
    response: 'CoretimeInfo',
    cacheable: true,
    errors: { 400: RELAY_ERRORS, ...NOT_FOUND },
  },
  overview: {
    path: '/coretime/overview',
    summary:
      'On a relay chain: each para a core works for, with its lifecycle and the core\u2019s descriptor, and the cores\u2019 schedules. ' +
      'On a coretime chain: each core\u2019s workload, workplan, kind (reservation, lease, bulk, on demand) and regions',
    description: `The paras, schedules and the Broker's maps are listed in pages (at most ${MAX_CORETIME_ENTRIES} each; more is a 400, never cut).`,
    query: ['at'],
    response: 'CoretimeOverview',
    cacheable: true,
    errors: { 400: RELAY_ERRORS, ...NOT_FOUND },
  },
  leases: brokerRoute('/coretime/leases', "The Broker pallet's leases, each with the core serving its task", 'CoretimeLeases'),
  regions: brokerRoute('/coretime/regions', "The Broker pallet's regions, by core", 'CoretimeRegions'),
  renewals: brokerRoute('/coretime/renewals', "The Broker pallet's potential renewals, by core", 'CoretimeRenewals'),
  reservations: brokerRoute('/coretime/reservations', "The Broker pallet's reservations (system chains and the pool)", 'CoretimeReservations'),
} as const satisfies Record<string, RouteSpec<'at'>>;

const nullable = (schema: unknown) => ({ oneOf: [{ type: 'null' }, schema] });
const number = decimal;
const mask = hex;
const workItem = closed({ isPool: { type: 'boolean' }, isTask: { type: 'boolean' }, mask, task: { type: 'string' } });
const region = closed({ core: number, begin: number, end: number, owner: { type: 'string' }, paid: number, mask }, ['core', 'begin', 'mask']);

export const CORETIME_FAMILY: RouteFamily<keyof typeof CORETIME_ROUTES, 'at'> = {
  tag: 'coretime',
  formatVersion: 2,
  noRelayBlock: 'useRcBlock is not served on the /coretime routes',
  routes: CORETIME_ROUTES,
  parameters: { at: AT_PARAMETER },
  pathParameters: {},
  schemas: {
    At: AT_SCHEMA,
    CoretimeInfo: { oneOf: [ref('CoretimeRelayInfo'), ref('CoretimeChainInfo')] },
    CoretimeRelayInfo: closed({ at: ref('At'), brokerId: decimal, palletVersion: decimal, maxHistoricalRevenue: decimal }),
    CoretimeChainInfo: closed({
      at: ref('At'),
      configuration: nullable(closed({ regionLength: number, interludeLength: number, leadinLength: number, relayBlocksPerTimeslice: number })),
      currentRegion: closed({ start: nullable(number), end: nullable(number) }),
      cores: nullable(
        closed({ available: number, sold: number, total: number, currentCorePrice: number, selloutPrice: number, firstCore: number }, [
          'available',
          'sold',
          'total',
          'currentCorePrice',
          'firstCore',
        ]),
      ),
      phase: nullable(
        closed({
          currentPhase: { enum: ['renewals', 'priceDiscovery', 'fixedPrice'] },
          config: { type: 'array', items: closed({ phaseName: { type: 'string' }, lastRelayBlock: number, lastTimeslice: number }) },
        }),
      ),
    }),
    CoretimeOverview: { oneOf: [ref('CoretimeRelayOverview'), ref('CoretimeChainOverview')] },
    CoretimeChainOverview: closed({
      at: ref('At'),
      cores: {
        type: 'array',
        items: closed({
          coreId: number,
          paraId: nullable({ type: 'string' }),
          workload: nullable(workItem),
          workplan: { type: 'array', items: closed({ core: number, timeslice: number, info: { type: 'array', items: workItem } }) },
          type: closed({ condition: { enum: ['reservation', 'lease', 'bulk', 'ondemand', 'idle'] }, details: closed({ mask, until: number }, []) }, [
            'condition',
          ]),
          regions: { type: 'array', items: region },
        }),
      },
    }),
    CoretimeLeases: closed({
      at: ref('At'),
      leases: { type: 'array', items: closed({ task: { type: 'string' }, until: number, core: number }, ['task', 'until']) },
    }),
    CoretimeRegions: closed({ at: ref('At'), regions: { type: 'array', items: region } }),
    CoretimeRenewals: closed({
      at: ref('At'),
      renewals: {
        type: 'array',
        items: closed(
          { completion: { enum: ['Complete', 'Partial'] }, core: number, mask: nullable(mask), price: number, task: { type: 'string' }, when: number },
          ['core', 'mask', 'task', 'when'],
        ),
      },
    }),
    CoretimeReservations: closed({ at: ref('At'), reservations: { type: 'array', items: closed({ mask, task: { type: 'string' } }, ['task']) } }),
    CoretimeRelayOverview: closed({
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
  },
};
