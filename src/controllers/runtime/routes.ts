// The `/runtime` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { closed, decimal } from '../../http/schemas';
import { AT_PARAMETER, AT_SCHEMA } from '../params';

export type RuntimeQueryName = 'at';

export const RUNTIME_PARAMETERS: Record<RuntimeQueryName, QueryParameter> = { at: AT_PARAMETER };

export const RUNTIME_ROUTES = {
  spec: {
    path: '/runtime/spec',
    summary: "The runtime's versions at a block, with the chain's type and properties",
    query: ['at'],
    response: 'RuntimeSpec',
    cacheable: true,
    errors: { 400: 'A malformed `at`, or a height beyond the head', 404: 'No block with that hash' },
  },
} as const satisfies Record<string, RouteSpec<RuntimeQueryName>>;

export type RuntimeRouteName = keyof typeof RUNTIME_ROUTES;

export const RUNTIME_FAMILY: RouteFamily<RuntimeRouteName, RuntimeQueryName> = {
  tag: 'runtime',
  routes: RUNTIME_ROUTES,
  parameters: RUNTIME_PARAMETERS,
  pathParameters: {},
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
  },
};
