// Every route family fastcar serves, in the order their paths are matched (the
// follow family's fixed paths, `/blocks/stream`, before `/blocks/:blockId`), and
// the OpenAPI document they make together.
import { Router } from 'express';

import { RELAY_SETTING } from '../config';
import { badRequest } from '../errors';
import { buildOpenApi } from '../http/openapi';
import type { RouteFamily } from '../http/routes';
import { ACCOUNTS_FAMILY } from './accounts/routes';
import { AHM_FAMILY } from './ahm/routes';
import { BLOCKS_FAMILY } from './blocks/routes';
import { FOLLOW_FAMILY } from './follow/routes';
import { NODE_FAMILY } from './node/routes';
import { PALLET_ASSETS_FAMILY } from './palletAssets/routes';
import { REFERENDA_FAMILY } from './referenda/routes';
import { PALLETS_FAMILY } from './pallets/routes';
import { PARAS_FAMILY } from './paras/routes';
import { CORETIME_FAMILY } from './coretime/routes';
import { RUNTIME_FAMILY } from './runtime/routes';
import { STAKING_FAMILY } from './staking/routes';
import { STAKING_ACCOUNTS_FAMILY } from './stakingAccounts/routes';
import { TRANSACTION_FAMILY } from './transaction/routes';
import { UNSERVED_FAMILY } from './unserved/routes';

/** The families served on the relay chain too (under /rc): all but the ones that follow this chain. */
export const RELAY_FAMILIES: readonly RouteFamily[] = [
  BLOCKS_FAMILY,
  RUNTIME_FAMILY,
  NODE_FAMILY,
  TRANSACTION_FAMILY,
  ACCOUNTS_FAMILY,
  STAKING_ACCOUNTS_FAMILY,
  PALLETS_FAMILY,
  STAKING_FAMILY,
  AHM_FAMILY,
  REFERENDA_FAMILY,
  PARAS_FAMILY,
  CORETIME_FAMILY,
  UNSERVED_FAMILY,
];

/** The families of this chain only: those that follow it, and those sidecar serves on Asset Hub alone. */
export const ROUTE_FAMILIES: readonly RouteFamily[] = [FOLLOW_FAMILY, ...RELAY_FAMILIES, PALLET_ASSETS_FAMILY];

/** The relay chain's routes when no relay node is set: each answers what is missing. */
export function unconfiguredRelayRouter(): Router {
  const router = Router();
  router.get(/.*/, () => {
    throw badRequest(`The relay chain routes need a relay chain node: set ${RELAY_SETTING}`);
  });
  return router;
}

/** What GET /openapi.json serves (and `npm run openapi` writes): the blocks family first, as readers look for it. */
export function openApiDocument(version: string): Record<string, unknown> {
  return buildOpenApi(version, [
    BLOCKS_FAMILY,
    FOLLOW_FAMILY,
    RUNTIME_FAMILY,
    TRANSACTION_FAMILY,
    NODE_FAMILY,
    ACCOUNTS_FAMILY,
    STAKING_ACCOUNTS_FAMILY,
    PALLETS_FAMILY,
    PALLET_ASSETS_FAMILY,
    STAKING_FAMILY,
    AHM_FAMILY,
    REFERENDA_FAMILY,
    PARAS_FAMILY,
    CORETIME_FAMILY,
    UNSERVED_FAMILY,
  ]);
}
