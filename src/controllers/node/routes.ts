// The `/node` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { closed } from '../../http/schemas';

export type NodeQueryName = never;

export const NODE_ROUTES = {
  version: {
    path: '/node/version',
    summary: "The node's software version, its runtime's implementation name and its chain",
    query: [],
    response: 'NodeVersion',
    errors: { 400: 'A malformed parameter (with FASTCAR_STRICT_PARAMS, one this route does not take)' },
  },
  network: {
    path: '/node/network',
    summary: "The node's roles, peers and listening addresses",
    query: [],
    response: 'NodeNetwork',
    errors: { 400: 'A malformed parameter (with FASTCAR_STRICT_PARAMS, one this route does not take)' },
  },
} as const satisfies Record<string, RouteSpec<NodeQueryName>>;

export type NodeRouteName = keyof typeof NODE_ROUTES;

const text = { type: 'string' };

export const NODE_FAMILY: RouteFamily<NodeRouteName, NodeQueryName> = {
  tag: 'node',
  routes: NODE_ROUTES,
  parameters: {} as Record<NodeQueryName, QueryParameter>,
  pathParameters: {},
  schemas: {
    NodeVersion: closed({ clientVersion: text, clientImplName: text, chain: text }),
    NodeNetwork: closed({
      nodeRoles: { type: 'array', items: { type: 'object' }, description: 'Each role as `{"full": null}`, `{"authority": null}`, `{"lightClient": null}`' },
      numPeers: { type: 'string', pattern: '^[0-9]+$' },
      isSyncing: { type: 'boolean' },
      shouldHavePeers: { type: 'boolean' },
      localPeerId: text,
      localListenAddresses: { type: 'array', items: text },
      peersInfo: {
        oneOf: [{ type: 'array', items: { type: 'object' } }, { type: 'string', description: 'When the node refuses system_peers (an unsafe method)' }],
      },
    }),
  },
};
