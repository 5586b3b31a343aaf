// The `/runtime` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { closed, decimal, ref } from '../../http/schemas';
import { AT_PARAMETER, AT_SCHEMA } from '../params';

export type RuntimeQueryName = 'at';

export const RUNTIME_PARAMETERS: Record<RuntimeQueryName, QueryParameter> = { at: AT_PARAMETER };

const AT_ERRORS = { 400: 'A malformed `at`, or a height beyond the head', 404: 'No block with that hash' };

export const RUNTIME_ROUTES = {
  spec: {
    path: '/runtime/spec',
    summary: "The runtime's versions at a block, with the chain's type and properties",
    query: ['at'],
    response: 'RuntimeSpec',
    cacheable: true,
    errors: AT_ERRORS,
  },
  metadata: {
    path: '/runtime/metadata',
    summary: "The runtime's metadata at a block, as its metadata RPC gives it, decoded (constants as SCALE hex)",
    query: ['at'],
    response: 'RuntimeMetadata',
    cacheable: true,
    errors: AT_ERRORS,
  },
  metadataVersions: {
    path: '/runtime/metadata/versions',
    summary: 'The metadata versions the runtime at a block offers',
    query: ['at'],
    response: 'MetadataVersions',
    cacheable: true,
    errors: { 400: 'A malformed `at`, a height beyond the head, or a runtime without metadata versions', 404: 'No block with that hash' },
  },
  metadataAtVersion: {
    path: '/runtime/metadata/:metadataVersion',
    summary: "The runtime's metadata at one of the versions it offers, decoded",
    query: ['at'],
    response: 'RuntimeMetadata',
    cacheable: true,
    errors: { 400: 'A malformed `at` or version, a height beyond the head, or a version the runtime does not offer', 404: 'No block with that hash' },
  },
  code: {
    path: '/runtime/code',
    summary: "The runtime's code (the `:code` storage item) at a block, as hex",
    query: ['at'],
    response: 'RuntimeCode',
    cacheable: true,
    errors: AT_ERRORS,
  },
} as const satisfies Record<string, RouteSpec<RuntimeQueryName>>;

export type RuntimeRouteName = keyof typeof RUNTIME_ROUTES;

export const RUNTIME_FAMILY: RouteFamily<RuntimeRouteName, RuntimeQueryName> = {
  tag: 'runtime',
  formatVersion: 1,
  routes: RUNTIME_ROUTES,
  parameters: RUNTIME_PARAMETERS,
  pathParameters: { metadataVersion: { description: 'A metadata version as `vN` (`v14`, `v15`, `v16`)', schema: { type: 'string', pattern: '^[vV][0-9]+$' } } },
  schemas: {
    At: AT_SCHEMA,
    RuntimeSpec: closed({
      at: { $ref: '#/components/schemas/At' },
      authoringVersion: decimal,
      transactionVersion: decimal,
      implVersion: decimal,
      specName: { type: 'string' },
      specVersion: decimal,
      chainType: { type: 'object', description: 'As the node says it: `{"live": null}`, `{"development": null}`, `{"local": null}` or `{"custom": name}`' },
      properties: {
        type: 'object',
        description: 'The chain properties the node reports (ss58Format, tokenDecimals, tokenSymbol, isEthereum, and any others), numbers as decimal strings',
      },
    }),
    RuntimeMetadata: closed({
      magicNumber: decimal,
      metadata: { type: 'object', description: "One key, the version (`v14`, `v15`, `v16`), holding polkadot.js's reading of it, numbers as decimal strings" },
    }),
    MetadataVersions: { type: 'array', items: decimal, description: 'Oldest first' },
    RuntimeCode: closed({
      at: ref('At'),
      code: {
        // A plain character class: a repeated group over megabytes of hex overflows a validator's regular expression stack.
        oneOf: [{ type: 'string', pattern: '^0x[0-9a-f]*$' }, { type: 'null' }],
        description: 'The wasm blob as hex, two digits a byte (null when the block has none)',
      },
    }),
  },
};
