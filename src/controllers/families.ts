// Every route family fastcar serves, declared once: its table, how its handlers are
// made on a chain, and the mounts it is served under. server.ts serves them from
// this list (through the one binder), the OpenAPI document describes them from it,
// and the tests walk what the binder serves from it. The order is the order paths
// are matched in: the follow family's fixed paths (`/blocks/stream`) before
// `/blocks/:blockId`.
import { Router } from 'express';

import { RELAY_SETTING } from '../config';
import { badRequest } from '../errors';
import { buildOpenApi } from '../http/openapi';
import type { RouteBinder } from '../http/routeBinder';
import type { FamilyHandlers, RouteFamily } from '../http/routes';
import type { ChainServices } from '../services/chain';
import { accountsHandlers } from './accounts/handlers';
import { ACCOUNTS_FAMILY } from './accounts/routes';
import { ahmHandlers } from './ahm/handlers';
import { AHM_FAMILY } from './ahm/routes';
import { blockHandlers, type BlockHandlerOptions } from './blocks/handlers';
import { BLOCKS_FAMILY } from './blocks/routes';
import { coretimeHandlers } from './coretime/handlers';
import { CORETIME_FAMILY } from './coretime/routes';
import { FOLLOW_FAMILY } from './follow/routes';
import { nodeHandlers } from './node/handlers';
import { NODE_FAMILY } from './node/routes';
import { palletAssetsHandlers } from './palletAssets/handlers';
import { PALLET_ASSETS_FAMILY } from './palletAssets/routes';
import { palletsHandlers } from './pallets/handlers';
import { PALLETS_FAMILY } from './pallets/routes';
import { parasHandlers } from './paras/handlers';
import { PARAS_FAMILY } from './paras/routes';
import { referendaHandlers } from './referenda/handlers';
import { REFERENDA_FAMILY } from './referenda/routes';
import { runtimeHandlers } from './runtime/handlers';
import { RUNTIME_FAMILY } from './runtime/routes';
import { stakingHandlers } from './staking/handlers';
import { STAKING_FAMILY } from './staking/routes';
import { stakingAccountsHandlers } from './stakingAccounts/handlers';
import { STAKING_ACCOUNTS_FAMILY } from './stakingAccounts/routes';
import { transactionHandlers } from './transaction/handlers';
import { TRANSACTION_FAMILY } from './transaction/routes';
import { unservedHandlers } from './unserved/handlers';
import { UNSERVED_FAMILY } from './unserved/routes';

/** Where a family is served: '' on this chain, '/rc' on its relay chain (each under `/v1` too). */
export type Mount = '' | '/rc';

/** What a family's handlers are made from on one chain. */
export interface ChainContext {
  /** The chain's services; a relay chain's throw until it is connected (its routes answer 503 meanwhile). */
  services(): ChainServices;
  blocks: BlockHandlerOptions;
  /** The follow family's handlers, made with the streams and the index that follow this chain (followWiring.ts). */
  following?: FamilyHandlers;
}

export interface FamilyEntry {
  family: RouteFamily;
  /** Its handlers on one chain, made when its first request arrives. */
  handlers(chain: ChainContext): FamilyHandlers;
  mounts: readonly Mount[];
}

const EVERY_CHAIN: readonly Mount[] = ['', '/rc'];
/** The families that follow this chain, and those sidecar serves on Asset Hub alone. */
const THIS_CHAIN: readonly Mount[] = [''];

export const FAMILIES: readonly FamilyEntry[] = [
  { family: FOLLOW_FAMILY, mounts: THIS_CHAIN, handlers: followingOf },
  { family: BLOCKS_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => blockHandlers(chain.services(), chain.blocks) },
  { family: RUNTIME_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => runtimeHandlers(chain.services()) },
  { family: NODE_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => nodeHandlers(chain.services()) },
  { family: TRANSACTION_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => transactionHandlers(chain.services()) },
  { family: ACCOUNTS_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => accountsHandlers(chain.services(), chain.blocks.relay) },
  { family: PALLETS_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => palletsHandlers(chain.services(), chain.blocks.relay) },
  { family: STAKING_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => stakingHandlers(chain.services(), chain.blocks.relay) },
  {
    family: STAKING_ACCOUNTS_FAMILY,
    mounts: EVERY_CHAIN,
    handlers: (chain) => stakingAccountsHandlers(chain.services(), chain.blocks.relay),
  },
  { family: AHM_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => ahmHandlers(chain.services(), chain.blocks.relay) },
  { family: REFERENDA_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => referendaHandlers(chain.services(), chain.blocks.relay) },
  { family: PARAS_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => parasHandlers(chain.services()) },
  { family: CORETIME_FAMILY, mounts: EVERY_CHAIN, handlers: (chain) => coretimeHandlers(chain.services()) },
  { family: UNSERVED_FAMILY, mounts: EVERY_CHAIN, handlers: unservedHandlers },
  {
    family: PALLET_ASSETS_FAMILY,
    mounts: THIS_CHAIN,
    handlers: (chain) => palletAssetsHandlers(chain.services(), chain.blocks.relay),
  },
];

function followingOf(chain: ChainContext): FamilyHandlers {
  if (!chain.following) throw new Error('the follow family is served only where the chain is followed');
  return chain.following;
}

/**
 * Binds every family to `routes`: this chain's first, then the relay chain's when it has
 * a context (its routes are matched after this chain's).
 */
export function serveFamilies(routes: RouteBinder, chains: { own: ChainContext; relay?: ChainContext }): void {
  for (const [mount, chain] of [
    ['', chains.own],
    ['/rc', chains.relay],
  ] as const) {
    if (!chain) continue;
    for (const { family, handlers, mounts } of FAMILIES) if (mounts.includes(mount)) routes.add(mount, family, () => handlers(chain));
  }
}

/** The relay chain's routes when no relay node is set: each answers what is missing. */
export function unconfiguredRelayRouter(): Router {
  const router = Router();
  router.get(/.*/, () => {
    throw badRequest(`The relay chain routes need a relay chain node: set ${RELAY_SETTING}`);
  });
  return router;
}

/** What GET /openapi.json serves (and `npm run openapi` writes): every family, the blocks family first, as readers look for it. */
export function openApiDocument(version: string): Record<string, unknown> {
  const families = FAMILIES.map(({ family }) => family);
  return buildOpenApi(version, [BLOCKS_FAMILY, ...families.filter((family) => family !== BLOCKS_FAMILY)]);
}
