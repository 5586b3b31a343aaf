// The routes about a chain's assets themselves (pallets Assets, PoolAssets, ForeignAssets,
// AssetConversion) as data (see docs/adding-routes.md). Served on Asset Hubs, not under /rc.
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { anyJson, closed, decimal, perRelayBlock, ref } from '../../http/schemas';
import { MAX_LISTED_ENTRIES } from '../../services/palletAssets/palletAssets';
import { AT_PARAMETER, AT_SCHEMA } from '../params';
import { RELAY_BLOCK_PARAMETERS } from '../relayAnswer';

export type PalletAssetsQueryName = 'at' | 'useRcBlock' | 'useRcBlockFormat';

const AT_ERRORS = 'A malformed `at` or flag, a height beyond the head, useRcBlock without a relay chain node, a runtime without the pallet at that block';
const ID_ERRORS = `An \`assetId\` that is not a whole number or not an asset id of this chain; ${AT_ERRORS}`;
const LISTED = `Every entry of the map is read (at most ${MAX_LISTED_ENTRIES}; a map longer than that is refused, not cut).`;
const QUERY = ['at', 'useRcBlock', 'useRcBlockFormat'] as const;

export const PALLET_ASSETS_ROUTES = {
  assetInfo: {
    path: '/pallets/assets/:assetId/asset-info',
    ownChecksFirst: true,
    summary: "An asset's details (owner, supply, accounts, status ...) and metadata (name, symbol, decimals) at a block",
    description: "The details are null for an id no asset has; the metadata is then the pallet's default (empty name and symbol).",
    query: QUERY,
    response: 'PalletAssetInfo',
    cacheable: true,
    errors: { 400: ID_ERRORS, 404: 'No block with that hash' },
  },
  poolAssetInfo: {
    path: '/pallets/pool-assets/:assetId/asset-info',
    ownChecksFirst: true,
    summary: "A pool asset's (a liquidity token's) details and metadata at a block",
    query: QUERY,
    response: 'PalletPoolAssetInfo',
    cacheable: true,
    errors: { 400: ID_ERRORS, 404: 'No block with that hash' },
  },
  foreignAssets: {
    path: '/pallets/foreign-assets',
    summary: 'Every foreign asset (keyed by its XCM location) with its details and metadata, at a block',
    description: `The location is written as polkadot.js writes it for people (sidecar's form: numbers with thousands separators). ${LISTED}`,
    query: QUERY,
    response: 'PalletForeignAssets',
    cacheable: true,
    errors: { 400: AT_ERRORS, 404: 'No block with that hash' },
  },
  liquidityPools: {
    path: '/pallets/asset-conversion/liquidity-pools',
    summary: 'Every asset-conversion pool: the pair of assets it trades and its liquidity token, at a block',
    description: LISTED,
    query: QUERY,
    response: 'PalletLiquidityPools',
    cacheable: true,
    errors: { 400: AT_ERRORS, 404: 'No block with that hash' },
  },
  nextPoolAssetId: {
    path: '/pallets/asset-conversion/next-available-id',
    summary: "The id the next asset-conversion pool's liquidity token will get, at a block",
    query: QUERY,
    response: 'PalletNextPoolAssetId',
    cacheable: true,
    errors: { 400: AT_ERRORS, 404: 'No block with that hash' },
  },
} as const satisfies Record<string, RouteSpec<PalletAssetsQueryName>>;

export type PalletAssetsRouteName = keyof typeof PALLET_ASSETS_ROUTES;

const details = { ...anyJson, description: "The pallet's AssetDetails as the runtime defines them (numbers as strings), null when there is none" };
const metadata = { ...anyJson, description: 'The AssetMetadata: deposit, name and symbol (hex), decimals, isFrozen' };

export const PALLET_ASSETS_FAMILY: RouteFamily<PalletAssetsRouteName, PalletAssetsQueryName> = {
  tag: 'pallets',
  formatVersion: 1,
  routes: PALLET_ASSETS_ROUTES,
  parameters: {
    at: AT_PARAMETER,
    ...RELAY_BLOCK_PARAMETERS,
  } satisfies Record<PalletAssetsQueryName, QueryParameter>,
  pathParameters: { assetId: { description: 'The asset id, a whole number', schema: { type: 'string', pattern: '^[0-9]+$' } } },
  schemas: {
    At: AT_SCHEMA,
    ...perRelayBlock('PalletAssetInfo', { at: ref('At'), assetInfo: details, assetMetaData: metadata }, ['at', 'assetInfo', 'assetMetaData']),
    ...perRelayBlock('PalletPoolAssetInfo', { at: ref('At'), poolAssetInfo: details, poolAssetMetaData: metadata }, [
      'at',
      'poolAssetInfo',
      'poolAssetMetaData',
    ]),
    ...perRelayBlock('PalletForeignAssets', { at: ref('At'), items: { type: 'array', items: ref('ForeignAssetItem') } }, ['at', 'items']),
    ForeignAssetItem: closed({
      multiLocation: { ...anyJson, description: 'The XCM location keying the asset, as polkadot.js writes it for people' },
      foreignAssetInfo: details,
      foreignAssetMetadata: metadata,
    }),
    ...perRelayBlock('PalletLiquidityPools', { at: ref('At'), pools: { type: 'array', items: ref('LiquidityPool') } }, ['at', 'pools']),
    LiquidityPool: closed({
      reserves: { type: 'array', items: anyJson, description: 'The two XCM locations the pool trades' },
      lpToken: { ...anyJson, description: '`{"lpToken": id}`: the pool asset its liquidity is counted in' },
    }),
    ...perRelayBlock('PalletNextPoolAssetId', { at: ref('At'), poolId: decimal }, ['at', 'poolId']),
  },
};
