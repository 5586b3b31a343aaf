// What server.ts binds, walked as the binder holds it, without a node: the same
// serveFamilies call, for this chain and a relay chain, whose handlers are never made.
import { serveFamilies, type ChainContext } from '../../src/controllers/families';
import { RouteBinder, type BinderParts } from '../../src/http/routeBinder';
import type { RouteSpec } from '../../src/http/routes';

export function servedRoutes(): { mount: string; spec: RouteSpec }[] {
  // Read only when a request arrives, and none does.
  const routes = new RouteBinder({} as BinderParts);
  const notMade = (): never => {
    throw new Error('no handler is made without a request');
  };
  const chain: ChainContext = { services: notMade, blocks: {} };
  serveFamilies(routes, { own: chain, relay: chain });
  return routes.served();
}
