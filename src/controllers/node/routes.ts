// The `/node` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { closed, decimal, hash, hex } from '../../http/schemas';
import { MAX_POOL_FEES_PER_REQUEST } from '../../services/node/transactionPool';

export type NodeQueryName = 'includeFee';

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
  transactionPool: {
    path: '/node/transaction-pool',
    summary: "The extrinsics in the node's transaction pool, with their fees and priorities if asked",
    description:
      `With \`includeFee=true\`, the first ${MAX_POOL_FEES_PER_REQUEST} entries (in the node's order) get \`tip\`, \`priority\` and ` +
      '`partialFee`, estimated at the best block; entries past them are listed without (each estimate is a runtime call on the node).',
    query: ['includeFee'],
    response: 'TransactionPool',
    errors: { 400: 'A malformed `includeFee`' },
  },
} as const satisfies Record<string, RouteSpec<NodeQueryName>>;

export type NodeRouteName = keyof typeof NODE_ROUTES;

const text = { type: 'string' };

export const NODE_FAMILY: RouteFamily<NodeRouteName, NodeQueryName> = {
  tag: 'node',
  formatVersion: 1,
  routes: NODE_ROUTES,
  parameters: {
    includeFee: { type: 'boolean', default: false, description: "Add each extrinsic's tip, pool priority and fee estimate (`partialFee`)" },
  } satisfies Record<NodeQueryName, QueryParameter>,
  pathParameters: {},
  schemas: {
    TransactionPool: closed({
      pool: {
        type: 'array',
        items: closed({ hash, encodedExtrinsic: hex, tip: decimal, priority: decimal, partialFee: decimal }, ['hash', 'encodedExtrinsic']),
      },
    }),
    NodeVersion: closed({ clientVersion: text, clientImplName: text, chain: text }),
    NodeNetwork: closed({
      nodeRoles: { type: 'array', items: { type: 'object' }, description: 'Each role as `{"full": null}`, `{"authority": null}`, `{"lightClient": null}`' },
      numPeers: { type: 'string', pattern: '^[0-9]+$' },
      isSyncing: { type: 'boolean' },
      shouldHavePeers: { type: 'boolean' },
      localPeerId: text,
      localListenAddresses: { type: 'array', items: text },
      peersInfo: {
        oneOf: [
          { type: 'array', items: { type: 'object' } },
          { type: 'string', description: 'When the node refuses system_peers (an unsafe method)' },
        ],
      },
    }),
  },
};
