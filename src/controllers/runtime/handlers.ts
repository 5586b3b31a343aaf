// HTTP for `/runtime`: each route reads its parameters, asks the services, and returns one answer value.
import type { Reply } from '../../http/reply';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import type { AnswerAt } from '../../services/shared/at/blockAt';
import { replyAt } from '../answers';
import { metadataVersionOf } from '../metadataParams';
import { sharedEncoder } from '../sharedForms';
import { parseAt, readFlags, type ParamOptions } from '../params';
import { RUNTIME_FAMILY, type RuntimeRouteName } from './routes';

const NO_RELAY_BLOCK = 'useRcBlock is not served on this route';

/** A reply whose bytes are the same at every block of a runtime is compressed once per runtime, not per request. */
function withSharedForms(reply: Reply, answer: AnswerAt): Reply {
  return answer.sharedKey === undefined ? reply : { ...reply, encoded: sharedEncoder(answer.sharedKey, answer.json) };
}

export function runtimeHandlers(chain: ChainServices, options: ParamOptions): FamilyHandlers<RuntimeRouteName> {
  const readParams = (req: RouteRequest, route: RuntimeRouteName) =>
    readFlags(req, RUNTIME_FAMILY.routes[route], RUNTIME_FAMILY.parameters, options, NO_RELAY_BLOCK);
  return {
    async spec(req) {
      const { ignoredParams } = readParams(req, 'spec');
      const answer = await chain.forRequest(req.stats).runtime.spec(parseAt(req.query.at));
      return replyAt(answer, `spec-${RUNTIME_FAMILY.formatVersion}`, ignoredParams);
    },
    async metadata(req) {
      const { ignoredParams } = readParams(req, 'metadata');
      const answer = await chain.forRequest(req.stats).runtime.metadata(parseAt(req.query.at), 'rpc');
      return withSharedForms(replyAt(answer, `metadata-${RUNTIME_FAMILY.formatVersion}`, ignoredParams), answer);
    },
    async metadataVersions(req) {
      const { ignoredParams } = readParams(req, 'metadataVersions');
      const answer = await chain.forRequest(req.stats).runtime.metadataVersions(parseAt(req.query.at));
      return replyAt(answer, `metadata-versions-${RUNTIME_FAMILY.formatVersion}`, ignoredParams);
    },
    async metadataAtVersion(req) {
      const { ignoredParams } = readParams(req, 'metadataAtVersion');
      const at = parseAt(req.query.at);
      const version = metadataVersionOf(req.params.metadataVersion);
      const answer = await chain.forRequest(req.stats).runtime.metadata(at, version);
      return withSharedForms(replyAt(answer, `metadata-v${version}-${RUNTIME_FAMILY.formatVersion}`, ignoredParams), answer);
    },
    async code(req) {
      const { ignoredParams } = readParams(req, 'code');
      const answer = await chain.forRequest(req.stats).runtime.code(parseAt(req.query.at));
      return replyAt(answer, `code-${RUNTIME_FAMILY.formatVersion}`, ignoredParams);
    },
  };
}
