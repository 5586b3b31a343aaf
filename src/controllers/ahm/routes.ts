// The `/ahm-info` route as data (see docs/adding-routes.md).
import type { RouteFamily, RouteSpec } from '../../http/routes';
import { closed } from '../../http/schemas';

export const AHM_ROUTES = {
  ahmInfo: {
    path: '/ahm-info',
    summary: 'Where the 2025 Asset Hub migration started and ended, on the relay chain and on its Asset Hub (heights; null where unknown)',
    description:
      'From the table of known migrations (Polkadot, Kusama, Westend, Paseo and their Asset Hubs), else from the migrator pallets at the finalized head ' +
      "(an Asset Hub's relay side needs FASTCAR_RELAY_URL).",
    query: [],
    response: 'AhmInfo',
    errors: { 400: 'A relay chain whose Asset Hub is not known' },
  },
} as const satisfies Record<string, RouteSpec<never>>;

const side = closed({ startBlock: { type: ['string', 'null'], pattern: '^[0-9]+$' }, endBlock: { type: ['string', 'null'], pattern: '^[0-9]+$' } });

export const AHM_FAMILY: RouteFamily<keyof typeof AHM_ROUTES, never> = {
  tag: 'ahm',
  formatVersion: 1,
  routes: AHM_ROUTES,
  parameters: {},
  pathParameters: {},
  schemas: { AhmInfo: closed({ relay: side, assetHub: side }) },
};
