// HTTP for `/node`: what the node says of itself, never kept by clients (it changes).
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { readFlags, type ParamOptions } from '../params';
import { NODE_FAMILY, type NodeRouteName } from './routes';

export function nodeHandlers(chain: ChainServices, options: ParamOptions): FamilyHandlers<NodeRouteName> {
  const readParams = (req: RouteRequest, route: NodeRouteName) =>
    readFlags(req, NODE_FAMILY.routes[route], NODE_FAMILY.parameters, options, 'useRcBlock is not served on this route');
  return {
    async version(req) {
      const { ignoredParams } = readParams(req, 'version');
      return { body: await chain.forRequest(req.stats).node.version(), ignoredParams };
    },
    async network(req) {
      const { ignoredParams } = readParams(req, 'network');
      return { body: await chain.forRequest(req.stats).node.network(), ignoredParams };
    },
    async transactionPool(req) {
      const { flags, ignoredParams } = readParams(req, 'transactionPool');
      return { body: await chain.forRequest(req.stats).node.transactionPool(flags.includeFee === true), ignoredParams };
    },
  };
}
