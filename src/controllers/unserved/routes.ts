// Sidecar's routes that fastcar does not serve, as data: each answers 501 with the reason,
// so a client learns why rather than meeting a 404 that looks like a typo.
import type { RouteFamily, RouteSpec } from '../../http/routes';

const TRACES =
  "Block traces are not served: they come from the node's state_traceBlock, which only a node started with tracing " +
  '(--rpc-methods unsafe, a runtime built with the with-tracing feature) answers, and re-executing blocks for strangers ' +
  "is a cost fastcar does not take on. Ask such a node's state_traceBlock directly.";

const INK =
  "ink! contract queries are not served: they need the contract's own ABI metadata (sent by the client in sidecar) " +
  "to encode the call and read its answer, and a dry run of contract code; use the chain's ContractsApi_call runtime API " +
  '(state_call) with a contract library such as @polkadot/api-contract.';

export const UNSERVED_ROUTES = {
  blockTraces: {
    path: '/experimental/blocks/:blockId/traces',
    summary: "A block's execution traces (sidecar's experimental route): not served",
    query: [],
    response: 'Error',
    errors: { 400: 'Never: the route always answers 501' },
    unserved: TRACES,
  },
  blockTraceOperations: {
    path: '/experimental/blocks/:blockId/traces/operations',
    summary: "A block's balance operations read from its traces (sidecar's experimental route): not served",
    query: [],
    response: 'Error',
    errors: { 400: 'Never: the route always answers 501' },
    unserved: TRACES,
  },
  inkQuery: {
    path: '/contracts/ink/:address/query',
    method: 'POST',
    summary: 'A read-only call of an ink! contract (sidecar POST /contracts/ink/{address}/query): not served',
    query: [],
    response: 'Error',
    errors: { 400: 'Never: the route always answers 501' },
    unserved: INK,
  },
} as const satisfies Record<string, RouteSpec<never>>;

export type UnservedRouteName = keyof typeof UNSERVED_ROUTES;

export const UNSERVED_FAMILY: RouteFamily<UnservedRouteName, never> = {
  tag: 'not served',
  formatVersion: 1,
  routes: UNSERVED_ROUTES,
  parameters: {},
  pathParameters: {
    blockId: { description: 'A height, a block hash or `head`' },
    address: { description: "The contract's address" },
  },
  schemas: {},
};
