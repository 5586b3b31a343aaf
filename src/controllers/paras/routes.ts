// The relay chain's `/paras` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { anyJson, closed, decimal, hash, ref } from '../../http/schemas';
import { MAX_PARA_ENTRIES } from '../../services/paras/parasReads';
import { AT_PARAMETER, AT_SCHEMA } from '../params';

export type ParasQueryName = 'at' | 'currentLeaseHolders';

const AT_ERRORS = 'A malformed `at`, a height beyond the head';
const missing = (pallet: string) => `${AT_ERRORS}, a runtime without the ${pallet} pallet at that block`;
const NOT_FOUND = { 404: 'No block with that hash' };
const PARA_ID_ERRORS = 'A `paraId` that is not a whole number of at most 4294967295';
const LISTED = `The map is listed whole in pages (at most ${MAX_PARA_ENTRIES} entries; more is a 400, never cut).`;

export const PARAS_ROUTES = {
  paras: {
    path: '/paras',
    summary: 'Every para (parachain or parathread) registered at a block, with its lifecycle; for an onboarding para, what it onboards as',
    description: LISTED,
    query: ['at'],
    response: 'Paras',
    cacheable: true,
    errors: { 400: missing('Paras'), ...NOT_FOUND },
  },
  leasesCurrent: {
    path: '/paras/leases/current',
    summary: 'The lease period a block is in, the height it ends at, and the paras holding a lease for it',
    description: `currentLeaseHolders=false leaves the holders out (no map listed). ${LISTED}`,
    query: ['at', 'currentLeaseHolders'],
    response: 'LeasesCurrent',
    cacheable: true,
    errors: { 400: `${missing('Slots')}, a malformed currentLeaseHolders`, ...NOT_FOUND },
  },
  auctionsCurrent: {
    path: '/paras/auctions/current',
    summary: "The auction running at a block: its ending period, phase, lease periods and the winning bids of the ending period's current sample",
    description: 'Fields are null when no auction runs; `auctionIndex` is then the last auction\u2019s.',
    query: ['at'],
    response: 'AuctionsCurrent',
    cacheable: true,
    errors: { 400: missing('Auctions'), ...NOT_FOUND },
  },
  crowdloans: {
    path: '/paras/crowdloans',
    summary: 'Every crowdloan fund at a block, with the para it raises for',
    description: LISTED,
    query: ['at'],
    response: 'Crowdloans',
    cacheable: true,
    errors: { 400: missing('Crowdloan'), ...NOT_FOUND },
  },
  leaseInfo: {
    path: '/paras/:paraId/lease-info',
    summary: "A para's lifecycle and its leases from the current lease period on (null: none)",
    query: ['at'],
    response: 'LeaseInfo',
    cacheable: true,
    errors: { 400: `${PARA_ID_ERRORS}; ${missing('Paras or Slots')}`, ...NOT_FOUND },
  },
  crowdloanInfo: {
    path: '/paras/:paraId/crowdloan-info',
    summary: "A para's crowdloan fund and the lease periods it bids for (fundInfo null: none)",
    query: ['at'],
    response: 'CrowdloanInfo',
    cacheable: true,
    errors: { 400: `${PARA_ID_ERRORS}; ${missing('Crowdloan')}`, ...NOT_FOUND },
  },
  includedCandidates: {
    path: '/paras/head/included-candidates',
    summary: "The parachain headers a block's CandidateIncluded events carry, keyed by para id",
    query: ['at'],
    response: 'ParasHeads',
    cacheable: true,
    errors: { 400: AT_ERRORS, ...NOT_FOUND },
  },
  backedCandidates: {
    path: '/paras/head/backed-candidates',
    summary: "The parachain headers a block's CandidateBacked events carry, keyed by para id",
    query: ['at'],
    response: 'ParasHeads',
    cacheable: true,
    errors: { 400: AT_ERRORS, ...NOT_FOUND },
  },
} as const satisfies Record<string, RouteSpec<ParasQueryName>>;

const orNullDecimal = { type: ['string', 'null'], pattern: '^[0-9]+$' };

export const PARAS_FAMILY: RouteFamily<keyof typeof PARAS_ROUTES, ParasQueryName> = {
  tag: 'paras',
  formatVersion: 1,
  noRelayBlock: 'useRcBlock is not served on the /paras routes',
  routes: PARAS_ROUTES,
  parameters: {
    at: AT_PARAMETER,
    currentLeaseHolders: { type: 'boolean', default: true, description: 'List the paras leasing the current period (`false`: leave them out)' },
  } satisfies Record<ParasQueryName, QueryParameter>,
  pathParameters: { paraId: { description: 'The para id, a whole number', schema: { type: 'string', pattern: '^[0-9]+$' } } },
  schemas: {
    At: AT_SCHEMA,
    Paras: closed({
      at: ref('At'),
      paras: {
        type: 'array',
        items: closed(
          {
            paraId: decimal,
            paraLifecycle: { type: 'string', description: '`Onboarding`, `Parathread`, `Parachain`, `UpgradingParathread` ...' },
            onboardingAs: { type: 'string', enum: ['parachain', 'parathread'] },
          },
          ['paraId', 'paraLifecycle'],
        ),
      },
    }),
    LeasesCurrent: closed(
      { at: ref('At'), leasePeriodIndex: decimal, endOfLeasePeriod: orNullDecimal, currentLeaseHolders: { type: 'array', items: decimal } },
      ['at', 'leasePeriodIndex', 'endOfLeasePeriod'],
    ),
    AuctionsCurrent: closed({
      at: ref('At'),
      beginEnd: orNullDecimal,
      finishEnd: orNullDecimal,
      phase: { type: ['string', 'null'], enum: ['startPeriod', 'endPeriod', 'vrfDelay', null] },
      auctionIndex: decimal,
      leasePeriods: { type: ['array', 'null'], items: decimal },
      winning: {
        type: ['array', 'null'],
        items: closed({
          bid: { oneOf: [{ type: 'null' }, closed({ accountId: { type: 'string' }, paraId: decimal, amount: decimal })] },
          leaseSet: { type: 'array', items: decimal },
        }),
      },
    }),
    Crowdloans: closed({
      at: ref('At'),
      funds: { type: 'array', items: closed({ paraId: decimal, fundInfo: { ...anyJson, description: 'The FundInfo, as the runtime stores it' } }) },
    }),
    LeaseInfo: closed(
      {
        at: ref('At'),
        paraLifecycle: { type: ['string', 'null'] },
        onboardingAs: { type: 'string', enum: ['parachain', 'parathread'] },
        leases: {
          type: ['array', 'null'],
          items: closed({ leasePeriodIndex: orNullDecimal, account: { type: 'string' }, deposit: decimal }),
        },
      },
      ['at', 'paraLifecycle', 'leases'],
    ),
    CrowdloanInfo: closed({ at: ref('At'), fundInfo: anyJson, leasePeriods: { type: 'array', items: decimal } }, ['at', 'fundInfo']),
    ParasHeads: {
      type: 'object',
      description: 'Besides `at`, one header per para id: `{ hash, parentHash, number, stateRoot, extrinsicsRoot, digest }`',
      properties: { at: ref('At') },
      required: ['at'],
      additionalProperties: closed({ hash, parentHash: hash, number: decimal, stateRoot: hash, extrinsicsRoot: hash, digest: anyJson }),
    },
  },
};
