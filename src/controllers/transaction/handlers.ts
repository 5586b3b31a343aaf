// HTTP for `/transaction`: each route reads its parameters, asks the services, and returns one answer value.
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { replyAt } from '../answers';
import { metadataFormOf, metadataVersionOf } from '../metadataParams';
import { parseAt, readFlags, type ParamOptions } from '../params';
import { TRANSACTION_FAMILY, type TransactionRouteName } from './routes';

/** Bumped whenever the JSON these routes make for the same block changes, so old ETags stop matching. */
const FORMAT_VERSION = 1;

export function transactionHandlers(chain: ChainServices, options: ParamOptions): FamilyHandlers<TransactionRouteName> {
  const readParams = (req: RouteRequest, route: TransactionRouteName) =>
    readFlags(req, TRANSACTION_FAMILY.routes[route], TRANSACTION_FAMILY.parameters, options, 'useRcBlock is not served on this route');
  return {
    async material(req) {
      const { ignoredParams } = readParams(req, 'material');
      const at = parseAt(req.query.at);
      const form = metadataFormOf(req.query.metadata);
      const answer = await chain.forRequest(req.stats).material.material(at, form);
      return replyAt(answer, `material-${form ?? 'none'}-${FORMAT_VERSION}`, ignoredParams);
    },
    async materialAtVersion(req) {
      const { ignoredParams } = readParams(req, 'materialAtVersion');
      const at = parseAt(req.query.at);
      const version = metadataVersionOf(req.params.metadataVersion);
      const form = metadataFormOf(req.query.metadata);
      const answer = await chain.forRequest(req.stats).material.materialAtVersion(at, version, form);
      return replyAt(answer, `material-v${version}-${form ?? 'json'}-${FORMAT_VERSION}`, ignoredParams);
    },
  };
}
