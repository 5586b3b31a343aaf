// HTTP for `/pallets/{palletId}/...`: each route reads its parameters, asks the pallet
// service, and returns one answer value. Checked in sidecar's order: the flags
// (useRcBlock's among them), `at`, then the pallet and the item (in the service).
import { blake2AsHex } from '@polkadot/util-crypto';

import { badRequest } from '../../errors';
import type { FamilyHandlers, Flags, RouteRequest } from '../../http/routes';
import type { AtBlock, AnswerAt } from '../../services/shared/at/blockAt';
import type { ChainServices } from '../../services/chain';
import type { PalletField } from '../../services/pallets/palletLookup';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { MAX_STORAGE_KEYS, PALLETS_FAMILY, type PalletsRouteName } from './routes';

const textOf = (value: unknown) => (typeof value === 'string' ? value : '');

/** The keys given as `keys[]` or `keys` (repeated or once), in order, bounded before any work. */
function keysOf(req: RouteRequest): string[] {
  const values = [req.query['keys[]'], req.query.keys].flatMap((value) => (Array.isArray(value) ? value : value === undefined ? [] : [value]));
  if (values.length > MAX_STORAGE_KEYS) throw badRequest(`At most ${MAX_STORAGE_KEYS} keys may be given in one request.`);
  return values.map(String);
}

/** The tag names everything the same block's answer differs by. */
const tagOf = (route: string, parts: unknown[]) => `pallets-${route}-${blake2AsHex(JSON.stringify(parts), 64).slice(2)}-${PALLETS_FAMILY.formatVersion}`;

const LISTS: Partial<Record<PalletsRouteName, PalletField>> = {
  storage: 'storage',
  consts: 'constants',
  errors: 'errors',
  events: 'events',
  dispatchables: 'calls',
};

const ITEMS: Partial<Record<PalletsRouteName, { field: Exclude<PalletField, 'storage'>; param: string }>> = {
  constItem: { field: 'constants', param: 'constantItemId' },
  errorItem: { field: 'errors', param: 'errorItemId' },
  eventItem: { field: 'events', param: 'eventItemId' },
  dispatchableItem: { field: 'calls', param: 'dispatchableItemId' },
};

/** `relay`: what useRcBlock=true reads through (this chain's relay link, or why there is none). */
export function palletsHandlers(chain: ChainServices, relay?: RelayOption): FamilyHandlers<PalletsRouteName> {
  /** Reads `at` (after the flags), then answers at that block, or with useRcBlock at each block of this chain the relay block included. */
  const answer = async (
    req: RouteRequest,
    route: PalletsRouteName,
    tagParts: unknown[],
    read: (services: ChainServices, at: AtBlock, flags: Flags) => Promise<AnswerAt>,
  ) => {
    const choice = relayChoiceOf(req, relay);
    const flags = req.flags();
    const services = chain.forRequest(req.stats);
    const tag = tagOf(route, [...tagParts, flags.onlyIds === true, flags.metadata === true]);
    return answerAtOrIncluded(req, choice, tag, (at) => read(services, at, flags));
  };

  const listHandler = (route: PalletsRouteName, field: PalletField) => (req: RouteRequest) => {
    const palletId = textOf(req.params.palletId);
    return answer(req, route, [palletId], (services, at, flags) => services.pallets.items(at, palletId, field, flags.onlyIds === true));
  };

  const itemHandler = (route: PalletsRouteName, field: Exclude<PalletField, 'storage'>, param: string) => (req: RouteRequest) => {
    const palletId = textOf(req.params.palletId);
    const itemId = textOf(req.params[param]);
    return answer(req, route, [palletId, itemId], (services, at, flags) =>
      services.pallets.item(at, field, { palletId, itemId, metadata: flags.metadata === true }),
    );
  };

  const handlers: Partial<FamilyHandlers<PalletsRouteName>> = {
    storageItem(req) {
      const palletId = textOf(req.params.palletId);
      const itemId = textOf(req.params.storageItemId);
      const keys = keysOf(req);
      return answer(req, 'storageItem', [palletId, itemId, keys], (services, at, flags) =>
        services.pallets.storageItem(at, { palletId, itemId, keys, metadata: flags.metadata === true }),
      );
    },
  };
  for (const [route, field] of Object.entries(LISTS) as [PalletsRouteName, PalletField][]) handlers[route] = listHandler(route, field);
  for (const [route, { field, param }] of Object.entries(ITEMS) as [PalletsRouteName, { field: Exclude<PalletField, 'storage'>; param: string }][]) {
    handlers[route] = itemHandler(route, field, param);
  }
  return handlers as FamilyHandlers<PalletsRouteName>;
}
