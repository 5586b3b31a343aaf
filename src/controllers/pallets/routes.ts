// The `/pallets/{palletId}/...` metadata and storage routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { anyJson, decimal, perRelayBlock, ref } from '../../http/schemas';
import { AT_PARAMETER, AT_SCHEMA } from '../params';
import { RELAY_BLOCK_PARAMETERS } from '../relayAnswer';

export type PalletsQueryName = 'at' | 'onlyIds' | 'metadata' | 'keys[]' | 'keys' | 'useRcBlock' | 'useRcBlockFormat';

/** The most keys a storage read takes (a map's keys are one per hasher: a handful). */
export const MAX_STORAGE_KEYS = 16;

export const PALLETS_PARAMETERS: Record<PalletsQueryName, QueryParameter> = {
  at: AT_PARAMETER,
  onlyIds: { type: 'boolean', default: false, description: "Only the items' names, not their metadata" },
  metadata: { type: 'boolean', default: false, description: "Adds the item's metadata (`metadata`) to the answer" },
  'keys[]': {
    type: 'string',
    description:
      `A map's keys, one per hasher, in order, as \`keys[]=a&keys[]=b\`, each as polkadot.js reads its type from text ` +
      `(an ss58 address or hex for an account, a decimal for a number, JSON for a composite); at most ${MAX_STORAGE_KEYS}. None for a plain value.`,
  },
  keys: { type: 'string', description: 'The same as `keys[]`.' },
  ...RELAY_BLOCK_PARAMETERS,
};

const LIST_QUERY = ['at', 'onlyIds', 'useRcBlock', 'useRcBlockFormat'] as const;
const ITEM_QUERY = ['at', 'metadata', 'useRcBlock', 'useRcBlockFormat'] as const;

const PALLET_ERRORS =
  'A malformed `at` or a height beyond the head, a pallet id that names no pallet of the runtime at that block, or one without items of this kind';
const ITEM_ERRORS = `${PALLET_ERRORS}, or an item name the pallet does not declare`;
const NOT_FOUND = 'No block with that hash';

/** One kind of pallet item: its list route and its item route. */
function kindRoutes(segment: string, itemParam: string, itemName: string, list: string, item: string) {
  return {
    list: {
      path: `/pallets/:palletId/${segment}`,
      summary: `A pallet's ${itemName}s at a block: their metadata, or with onlyIds their names`,
      query: LIST_QUERY,
      response: list,
      cacheable: true,
      errors: { 400: PALLET_ERRORS, 404: NOT_FOUND },
    },
    item: {
      path: `/pallets/:palletId/${segment}/:${itemParam}`,
      summary: `One of a pallet's ${itemName}s by name at a block, with its metadata when asked`,
      query: ITEM_QUERY,
      response: item,
      cacheable: true,
      errors: { 400: ITEM_ERRORS, 404: NOT_FOUND },
    },
  } satisfies Record<string, RouteSpec<PalletsQueryName>>;
}

const consts = kindRoutes('consts', 'constantItemId', 'constant', 'PalletConstants', 'PalletConstantItem');
const errors = kindRoutes('errors', 'errorItemId', 'error', 'PalletErrors', 'PalletErrorItem');
const events = kindRoutes('events', 'eventItemId', 'event', 'PalletEvents', 'PalletEventItem');
const dispatchables = kindRoutes('dispatchables', 'dispatchableItemId', 'dispatchable (call)', 'PalletDispatchables', 'PalletDispatchableItem');

export const PALLETS_ROUTES = {
  storage: {
    path: '/pallets/:palletId/storage',
    summary: "A pallet's storage items at a block: their metadata (docs as one string), or with onlyIds their names",
    query: LIST_QUERY,
    response: 'PalletStorage',
    cacheable: true,
    errors: { 400: PALLET_ERRORS, 404: NOT_FOUND },
  },
  storageItem: {
    path: '/pallets/:palletId/storage/:storageItemId',
    ownChecksFirst: true,
    summary: "A storage item's value at a block (a map's by its keys), with the item's metadata when asked",
    description:
      "The key is built from the runtime's metadata and read in one call, in the same wave as the block's version; " +
      "the value is decoded with the runtime's types. " +
      "Nothing stored reads as the item's default, or null for an optional item.",
    query: ['at', 'keys[]', 'keys', 'metadata', 'useRcBlock', 'useRcBlockFormat'],
    response: 'PalletStorageItem',
    cacheable: true,
    errors: { 400: `${ITEM_ERRORS}, or keys[] of the wrong count or not of the item's key types`, 404: NOT_FOUND },
  },
  consts: consts.list,
  constItem: consts.item,
  errors: errors.list,
  errorItem: errors.item,
  events: events.list,
  eventItem: events.item,
  dispatchables: dispatchables.list,
  dispatchableItem: dispatchables.item,
} as const satisfies Record<string, RouteSpec<PalletsQueryName>>;

export type PalletsRouteName = keyof typeof PALLETS_ROUTES;

const PALLET_FIELDS = {
  at: ref('At'),
  pallet: { type: 'string', description: "The pallet's name, camel-cased (`system`, `parachainSystem`)" },
  palletIndex: { ...decimal, description: "The pallet's index in the runtime" },
};

const list = (described: string) => ({
  ...PALLET_FIELDS,
  items: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object' }] }, description: `${described}; with onlyIds their names` },
});

const item = (field: string, described: string) => ({
  fields: {
    ...PALLET_FIELDS,
    [field]: { type: 'string', description: 'The item as asked for, camel-cased' },
    metadata: { type: 'object', description: described },
  },
  required: ['at', 'pallet', 'palletIndex', field],
});

const constItem = item('constantsItem', 'With metadata=true: `{name, type, value, docs, ...}` (value as SCALE hex)');
const errorItem = item('errorItem', 'With metadata=true: `{name, fields, index, docs, args}`');
const eventItem = item('eventItem', 'With metadata=true: `{name, fields, index, docs, args}`');
const dispatchableItem = item('dispatchableItem', 'With metadata=true: `{name, fields, index, docs, args, ...}`');

export const PALLETS_FAMILY: RouteFamily<PalletsRouteName, PalletsQueryName> = {
  tag: 'pallets',
  formatVersion: 1,
  routes: PALLETS_ROUTES,
  parameters: PALLETS_PARAMETERS,
  pathParameters: {
    palletId: { description: 'A pallet by name (any case; snake or kebab case are camel-cased first, as sidecar) or by index', schema: { type: 'string' } },
    storageItemId: { description: 'A storage item by name (camel case, any case)', schema: { type: 'string' } },
    constantItemId: { description: 'A constant by name (camel case, any case)', schema: { type: 'string' } },
    errorItemId: { description: 'An error by name (camel case, any case)', schema: { type: 'string' } },
    eventItemId: { description: 'An event by name (camel case, any case)', schema: { type: 'string' } },
    dispatchableItemId: { description: 'A dispatchable (call) by name (camel or snake case, any case)', schema: { type: 'string' } },
  },
  schemas: {
    At: AT_SCHEMA,
    ...perRelayBlock('PalletStorage', list("Each storage item's metadata (`{name, modifier, type, fallback, docs, ...}`, docs as one string)")),
    ...perRelayBlock(
      'PalletStorageItem',
      {
        ...PALLET_FIELDS,
        storageItem: { type: 'string', description: 'The item as asked for, camel-cased' },
        keys: { type: 'array', items: { type: 'string' }, description: 'The keys as given' },
        value: { ...anyJson, description: "The value in sidecar's JSON (numbers as decimal strings); null for an optional item without one" },
        metadata: { type: 'object', description: "With metadata=true: the item's metadata, as the list gives it" },
      },
      ['at', 'pallet', 'palletIndex', 'storageItem', 'keys', 'value'],
    ),
    ...perRelayBlock('PalletConstants', list("Each constant's metadata (`{name, type, value, docs, ...}`, value as SCALE hex)")),
    ...perRelayBlock('PalletConstantItem', constItem.fields, constItem.required),
    ...perRelayBlock('PalletErrors', list("Each error's metadata (`{name, fields, index, docs, args}`)")),
    ...perRelayBlock('PalletErrorItem', errorItem.fields, errorItem.required),
    ...perRelayBlock('PalletEvents', list("Each event's metadata (`{name, fields, index, docs, args}`)")),
    ...perRelayBlock('PalletEventItem', eventItem.fields, eventItem.required),
    ...perRelayBlock('PalletDispatchables', list("Each dispatchable's metadata (`{name, fields, index, docs, args, ...}`)")),
    ...perRelayBlock('PalletDispatchableItem', dispatchableItem.fields, dispatchableItem.required),
  },
};
