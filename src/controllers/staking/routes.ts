// The `/pallets/staking` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { anyJson, closed, decimal, perRelayBlock, ref } from '../../http/schemas';
import { MAX_STAKING_ENTRIES } from '../../services/staking/stakingReads';
import { AT_PARAMETER, AT_SCHEMA } from '../params';
import { RELAY_BLOCK_PARAMETERS } from '../relayAnswer';

export type StakingQueryName = 'at' | 'useRcBlock' | 'useRcBlockFormat' | 'metadata';

const ERRORS =
  'A malformed `at` or flag, a height beyond the head, a runtime without the Staking pallet at that block, a known bad staking block, ' +
  'on an Asset Hub without a relay chain node (FASTCAR_RELAY_URL)';
const QUERY = ['at', 'useRcBlock', 'useRcBlockFormat'] as const;

export const STAKING_ROUTES = {
  progress: {
    path: '/pallets/staking/progress',
    summary: "Staking's progress at a block: the active era, when the next session and era are expected, unapplied slashes, the validator set",
    description:
      "On an Asset Hub the session and epoch are worked out from the block's timestamp and the relay chain's BABE facts, and the validator set and " +
      "skipped epochs are the relay chain's at its finalized head (sidecar reads them at the relay's head too): needs FASTCAR_RELAY_URL.",
    query: QUERY,
    response: 'StakingProgress',
    cacheable: true,
    errors: { 400: ERRORS, 404: 'No block with that hash' },
  },
  validators: {
    path: '/pallets/staking/validators',
    summary: 'Every validator at a block (address, active or waiting, commission, blocked), and those active no longer validating',
    description: `Validators are listed whole (at most ${MAX_STAKING_ENTRIES}; more is a 400, never cut).`,
    query: QUERY,
    response: 'StakingValidators',
    cacheable: true,
    errors: { 400: ERRORS, 404: 'No block with that hash' },
  },
  poolsInfo: {
    path: '/pallets/nomination-pools/info',
    summary: "The nomination pools' counters (pools, members, metadata ...), the last pool id and the pallet's bounds, at a block",
    query: QUERY,
    response: 'NominationPoolsInfo',
    cacheable: true,
    errors: { 400: 'A malformed `at` or flag, a height beyond the head, a runtime without the NominationPools pallet', 404: 'No block with that hash' },
  },
  pool: {
    path: '/pallets/nomination-pools/:poolId',
    ownChecksFirst: true,
    summary: "A nomination pool's bonded and reward parts at a block (null for an id no pool has), and with metadata=true its metadata",
    query: [...QUERY, 'metadata'],
    response: 'NominationPool',
    cacheable: true,
    errors: {
      400: 'A `poolId` that is not a whole number, a malformed `at` or flag, a height beyond the head, a runtime without the NominationPools pallet',
      404: 'No block with that hash',
    },
  },
} as const satisfies Record<string, RouteSpec<StakingQueryName>>;

export type StakingRouteName = keyof typeof STAKING_ROUTES;

const validator = closed(
  {
    address: { type: 'string' },
    status: { type: 'string', enum: ['active', 'waiting'] },
    commission: { ...decimal, description: 'Perbill' },
    blocked: { type: 'boolean' },
  },
  ['address', 'status'],
);

const orNullDecimal = { type: ['string', 'null'], pattern: '^[0-9]+$', description: 'Null where the pallet sets no bound' };

const PROGRESS_FIELDS = {
  at: ref('At'),
  activeEra: decimal,
  forceEra: { type: 'string', description: '`NotForcing`, `ForceNew`, `ForceNone` or `ForceAlways`' },
  nextSessionEstimate: { type: 'string', description: 'The height the next session is expected at' },
  unappliedSlashes: { type: 'array', items: anyJson },
  validatorSet: { type: 'array', items: { type: 'string' } },
  nextActiveEraEstimate: { type: 'string', description: 'The height the next era is expected at (absent under ForceNone)' },
  electionStatus: { ...anyJson, description: '`Deprecated, see docs` on runtimes without an election status' },
  idealValidatorCount: decimal,
};

export const STAKING_FAMILY: RouteFamily<StakingRouteName, StakingQueryName> = {
  tag: 'staking',
  formatVersion: 1,
  routes: STAKING_ROUTES,
  parameters: {
    at: AT_PARAMETER,
    ...RELAY_BLOCK_PARAMETERS,
    metadata: { type: 'boolean', default: false, description: "Add the pool's metadata (hex), read at the block" },
  } satisfies Record<StakingQueryName, QueryParameter>,
  pathParameters: { poolId: { description: 'The pool id, a whole number', schema: { type: 'string', pattern: '^[0-9]+$' } } },
  schemas: {
    At: AT_SCHEMA,
    ...perRelayBlock(
      'NominationPoolsInfo',
      {
        at: ref('At'),
        ...Object.fromEntries(
          ['counterForBondedPools', 'counterForMetadata', 'counterForPoolMembers', 'counterForReversePoolIdLookup', 'counterForRewardPools'].map((name) => [
            name,
            decimal,
          ]),
        ),
        counterForSubPoolsStorage: decimal,
        lastPoolId: decimal,
        maxPoolMembers: orNullDecimal,
        maxPoolMembersPerPool: orNullDecimal,
        maxPools: orNullDecimal,
        minCreateBond: decimal,
        minJoinBond: decimal,
      },
      ['at', 'lastPoolId'],
    ),
    ...perRelayBlock(
      'NominationPool',
      { at: ref('At'), bondedPool: anyJson, rewardPool: anyJson, metadata: { type: 'string', description: 'With metadata=true' } },
      ['at', 'bondedPool', 'rewardPool'],
    ),
    ...perRelayBlock('StakingProgress', PROGRESS_FIELDS, ['at', 'activeEra', 'forceEra', 'nextSessionEstimate', 'unappliedSlashes', 'validatorSet']),
    ...perRelayBlock(
      'StakingValidators',
      { at: ref('At'), validators: { type: 'array', items: validator }, validatorsToBeChilled: { type: 'array', items: validator } },
      ['at', 'validators', 'validatorsToBeChilled'],
    ),
  },
};
