// HTTP for `/node`: what the node says of itself, never kept by clients (it changes).
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import type { NodeRouteName } from './routes';

export function nodeHandlers(chain: ChainServices): FamilyHandlers<NodeRouteName> {
  return {
    async version(req) {
      return { body: await chain.forRequest(req.stats).node.version() };
    },
    async network(req) {
      return { body: await chain.forRequest(req.stats).node.network() };
    },
    async transactionPool(req) {
      return { body: await chain.forRequest(req.stats).node.transactionPool(req.flags().includeFee === true) };
    },
  };
}
