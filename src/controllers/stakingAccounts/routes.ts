// The `/accounts/{accountId}/staking-*` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { anyJson, closed, decimal, perRelayBlock, ref } from '../../http/schemas';
import { MAX_EXPOSURE_PAGES_PER_ERA } from '../../services/staking/eraExposures';
import { ERAS_PER_WAVE } from '../../services/staking/stakingPayouts';
import { AT_PARAMETER, AT_SCHEMA } from '../params';
import { RELAY_BLOCK_PARAMETERS } from '../relayAnswer';

export type StakingAccountsQueryName = 'at' | 'useRcBlock' | 'useRcBlockFormat' | 'includeClaimedRewards' | 'depth' | 'era' | 'unclaimedOnly';

const ADDRESS_ERRORS = 'A malformed address, a malformed `at` or flag, a height beyond the head, a runtime without the Staking pallet';

export const STAKING_ACCOUNTS_ROUTES = {
  stakingInfo: {
    path: '/accounts/:accountId/staking-info',
    ownChecksFirst: true,
    summary: "A stash's staking at a block: controller, reward destination, nominations, ledger, and per era whether its rewards were claimed",
    description:
      'Read in two waves once `at` is resolved (a third for a nominator whose validator was paid for some of its pages only): ' +
      "the stash's entries, then every era's overview and claimed pages for the stash (a validator) or each of its targets (a nominator).",
    query: ['at', 'includeClaimedRewards', 'useRcBlock', 'useRcBlockFormat'],
    response: 'AccountStakingInfo',
    cacheable: true,
    errors: { 400: `${ADDRESS_ERRORS}, an account that is no stash (not bonded)`, 404: 'No block with that hash' },
  },
  stakingPayouts: {
    path: '/accounts/:accountId/staking-payouts',
    ownChecksFirst: true,
    summary: "An account's payouts per era over `depth` eras up to `era`: per validator it backed, its points, commission, exposure, payout, and if claimed",
    description:
      `Eras are read ${ERAS_PER_WAVE} at a time, each batch's exposures, rewards and points in two waves, then every validator's era facts, bond and ledger ` +
      `in one: a 10-era request is about five waves. \`depth\` is bounded by the runtime's history depth (84), ` +
      `an era by ${MAX_EXPOSURE_PAGES_PER_ERA} exposure pages, so a request makes at most depth x (pages / 1000 + pages / 64 + 3) + 4 node calls ` +
      "(pages: an era's exposure pages); " +
      'a client that leaves stops it before the next batch. ' +
      "A closed era's exposures, rewards and points are kept once read at a final block, and an answer at a block for the same question. " +
      'On an Asset Hub, eras paid on the relay chain before the ' +
      '2025 migration are a 400 (ask the relay chain), eras without a reward are left out, as sidecar leaves them out there.',
    query: ['at', 'depth', 'era', 'unclaimedOnly', 'useRcBlock', 'useRcBlockFormat'],
    response: 'AccountStakingPayouts',
    cacheable: true,
    errors: {
      400:
        `${ADDRESS_ERRORS}, a \`depth\` or \`era\` that is not a whole number, a depth over the history depth, an era after the active era's last, ` +
        'an era and depth reaching before the history kept, eras paid on the relay chain before the migration',
      404: 'No block with that hash',
    },
  },
} as const satisfies Record<string, RouteSpec<StakingAccountsQueryName>>;

export type StakingAccountsRouteName = keyof typeof STAKING_ACCOUNTS_ROUTES;

const claimStatus = closed({ era: decimal, status: { type: 'string', enum: ['claimed', 'unclaimed', 'partially claimed', 'undefined'] } });

const payout = closed({
  validatorId: { type: 'string' },
  nominatorStakingPayout: decimal,
  claimed: { type: 'boolean' },
  totalValidatorRewardPoints: decimal,
  validatorCommission: { ...decimal, description: 'Perbill' },
  totalValidatorExposure: decimal,
  nominatorExposure: decimal,
});

const eraPayouts = {
  oneOf: [
    closed({ era: decimal, totalEraRewardPoints: decimal, totalEraPayout: decimal, payouts: { type: 'array', items: payout } }),
    closed({ message: { type: 'string', description: 'An era without a recorded reward (not on an Asset Hub, where such eras are left out)' } }),
  ],
};

export const STAKING_ACCOUNTS_FAMILY: RouteFamily<StakingAccountsRouteName, StakingAccountsQueryName> = {
  tag: 'accounts',
  formatVersion: 1,
  routes: STAKING_ACCOUNTS_ROUTES,
  parameters: {
    at: AT_PARAMETER,
    ...RELAY_BLOCK_PARAMETERS,
    includeClaimedRewards: {
      type: 'boolean',
      default: true,
      description: 'List per era of the history depth whether the rewards were claimed (`staking.claimedRewards`); only `false` leaves it out',
    },
    depth: { type: 'integer', description: 'How many eras, ending at `era` (1 when absent), at most the history depth' },
    era: { type: 'integer', description: "The last era (the active era's previous when absent)" },
    unclaimedOnly: { type: 'boolean', default: true, description: 'Only payouts not yet claimed; only `false` lists them all' },
  } satisfies Record<StakingAccountsQueryName, QueryParameter>,
  pathParameters: { accountId: { description: 'The stash, an ss58 address (or its hex)', schema: { type: 'string' } } },
  schemas: {
    At: AT_SCHEMA,
    ...perRelayBlock('AccountStakingInfo', {
      at: ref('At'),
      controller: { type: 'string' },
      rewardDestination: anyJson,
      numSlashingSpans: decimal,
      nominations: anyJson,
      staking: closed(
        {
          stash: { type: 'string' },
          total: decimal,
          active: decimal,
          unlocking: { type: 'array', items: anyJson },
          claimedRewards: { type: 'array', items: claimStatus },
        },
        ['stash', 'total', 'active', 'unlocking'],
      ),
    }),
    ...perRelayBlock('AccountStakingPayouts', { at: ref('At'), erasPayouts: { type: 'array', items: eraPayouts } }),
  },
};
