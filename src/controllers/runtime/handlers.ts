// HTTP for `/runtime`: each route reads its parameters, asks the services, and returns one answer value.
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { replyAt } from '../answers';
import { parseAt, readFlags, type ParamOptions } from '../params';
import { RUNTIME_FAMILY, type RuntimeRouteName } from './routes';

/** Bumped whenever the JSON these routes make for the same block changes, so old ETags stop matching. */
const FORMAT_VERSION = 1;

const NO_RELAY_BLOCK = 'useRcBlock is not served on this route';

export function runtimeHandlers(chain: ChainServices, options: ParamOptions): FamilyHandlers<RuntimeRouteName> {
  const readParams = (req: RouteRequest, route: RuntimeRouteName) => readFlags(req, RUNTIME_FAMILY.routes[route], RUNTIME_FAMILY.parameters, options, NO_RELAY_BLOCK);
  return {
    async spec(req) {
      const { ignoredParams } = readParams(req, 'spec');
      const answer = await chain.forRequest(req.stats).runtime.spec(parseAt(req.query.at));
      return replyAt(answer, `spec-${FORMAT_VERSION}`, ignoredParams);
    },
  };
}
