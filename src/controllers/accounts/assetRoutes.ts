// The asset routes of `/accounts` as data (see docs/adding-routes.md): joined to the family's table in routes.ts.
import type { QueryParameter, RouteSpec } from '../../http/routes';
import { anyJson, closed, decimal, ref } from '../../http/schemas';

export type AssetsQueryName = 'assets[]' | 'assets' | 'assetId' | 'delegate' | 'foreignAssets[]' | 'foreignAssets';

/** The most assets one request may name (under the query parser's 1000 pairs, so a longer list is refused, not cut). */
export const MAX_NAMED_ASSETS = 500;

const NAMED_IDS =
  `Asset ids (whole numbers), as \`assets[]=1&assets[]=2\` (or \`assets=1&assets=2\`); at most ${MAX_NAMED_ASSETS}. ` +
  'Absent: every asset of the chain (its map of assets listed, at most 10000), held or not.';

export const ASSETS_PARAMETERS: Record<AssetsQueryName, QueryParameter> = {
  'assets[]': { type: 'string', description: NAMED_IDS },
  assets: { type: 'string', description: 'The same as `assets[]`.' },
  assetId: { type: 'string', description: 'The asset (a whole number) the approval is for.' },
  delegate: { type: 'string', description: 'The account the owner approved to spend (an ss58 address or its hex).' },
  'foreignAssets[]': {
    type: 'string',
    description:
      'XCM locations, each a versioned location as JSON (`{"v4":{"parents":1,"interior":{"here":null}}}`), repeated; ' +
      `at most ${MAX_NAMED_ASSETS}. Absent: every foreign asset of the chain (at most 10000).`,
  },
  foreignAssets: { type: 'string', description: 'The same as `foreignAssets[]`.' },
};

const ADDRESS_ERRORS =
  'A malformed address (checksum, base58, format), an address that is no account of this chain, a malformed `at`, a height beyond the head, ' +
  'a runtime without the pallet at that block';

export const ASSETS_ROUTES = {
  assetBalances: {
    path: '/accounts/:accountId/asset-balances',
    ownChecksFirst: true,
    summary: "An account's balance of each asset (pallet Assets) at a block: the named ones, or every asset of the chain",
    query: ['at', 'assets[]', 'assets', 'useRcBlock', 'useRcBlockFormat'],
    response: 'AccountAssetsBalances',
    cacheable: true,
    errors: {
      400: `${ADDRESS_ERRORS}, an asset id that is not a whole number or not an id of this chain, more than ${MAX_NAMED_ASSETS} ids`,
      404: 'No block with that hash',
    },
  },
  assetApprovals: {
    path: '/accounts/:accountId/asset-approvals',
    ownChecksFirst: true,
    summary: 'What an account approved a delegate to spend of an asset (pallet Assets), at a block',
    query: ['at', 'assetId', 'delegate', 'useRcBlock', 'useRcBlockFormat'],
    required: ['assetId', 'delegate'],
    response: 'AccountAssetApproval',
    cacheable: true,
    errors: { 400: `${ADDRESS_ERRORS}, a missing or malformed \`assetId\` or \`delegate\``, 404: 'No block with that hash' },
  },
  poolAssetBalances: {
    path: '/accounts/:accountId/pool-asset-balances',
    ownChecksFirst: true,
    summary: "An account's balance of each pool asset (pallet PoolAssets: liquidity tokens) at a block",
    query: ['at', 'assets[]', 'assets', 'useRcBlock', 'useRcBlockFormat'],
    response: 'AccountPoolAssetsBalances',
    cacheable: true,
    errors: {
      400: `${ADDRESS_ERRORS}, an asset id that is not a whole number or not an id of this chain, more than ${MAX_NAMED_ASSETS} ids`,
      404: 'No block with that hash',
    },
  },
  poolAssetApprovals: {
    path: '/accounts/:accountId/pool-asset-approvals',
    ownChecksFirst: true,
    summary: 'What an account approved a delegate to spend of a pool asset (pallet PoolAssets), at a block',
    query: ['at', 'assetId', 'delegate', 'useRcBlock', 'useRcBlockFormat'],
    required: ['assetId', 'delegate'],
    response: 'AccountAssetApproval',
    cacheable: true,
    errors: { 400: `${ADDRESS_ERRORS}, a missing or malformed \`assetId\` or \`delegate\``, 404: 'No block with that hash' },
  },
  foreignAssetBalances: {
    path: '/accounts/:accountId/foreign-asset-balances',
    ownChecksFirst: true,
    summary: "An account's balance of each foreign asset (pallet ForeignAssets, keyed by XCM location) it holds, at a block",
    query: ['at', 'foreignAssets[]', 'foreignAssets', 'useRcBlock', 'useRcBlockFormat'],
    response: 'AccountForeignAssetsBalances',
    cacheable: true,
    errors: {
      400: `${ADDRESS_ERRORS}, a location that is not JSON or not a location, more than ${MAX_NAMED_ASSETS} locations`,
      404: 'No block with that hash',
    },
  },
} as const satisfies Record<string, RouteSpec<AssetsQueryName | 'at' | 'useRcBlock' | 'useRcBlockFormat'>>;

const balanceFields = {
  balance: decimal,
  isFrozen: {
    type: ['boolean', 'string'],
    description: 'Whether the balance is frozen; on runtimes whose balances have no such flag, the sentence `isFrozen does not exist for this runtime`',
  },
  isSufficient: { type: 'boolean', description: 'Whether the asset alone keeps the account alive' },
};

const amountOrNull = { type: ['string', 'null'], pattern: '^[0-9]+$' };

export const ASSETS_SCHEMAS = {
  AccountAssetsBalances: closed({ at: ref('At'), assets: { type: 'array', items: ref('AccountAssetBalance') } }),
  AccountPoolAssetsBalances: closed({ at: ref('At'), poolAssets: { type: 'array', items: ref('AccountAssetBalance') } }),
  AccountAssetBalance: closed({ assetId: decimal, ...balanceFields }),
  AccountForeignAssetsBalances: closed({
    at: ref('At'),
    foreignAssets: { type: 'array', items: ref('AccountForeignAssetBalance'), description: 'Only the assets the account holds some of' },
  }),
  AccountForeignAssetBalance: closed({
    multiLocation: { ...anyJson, description: 'The asset\'s XCM location as the chain keys it (`{"parents":"1","interior":{"here":null}}`)' },
    ...balanceFields,
    isFrozen: { type: 'boolean' },
  }),
  AccountAssetApproval: closed({
    at: ref('At'),
    amount: { ...amountOrNull, description: 'What the delegate may spend; null without an approval' },
    deposit: { ...amountOrNull, description: 'What the owner put down for the approval; null without one' },
  }),
};
