// HTTP for `/runtime`: each route reads its parameters, asks the services, and returns one answer value.
import type { Reply } from '../../http/reply';
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import type { AnswerAt } from '../../services/shared/at/blockAt';
import { replyAt } from '../answers';
import { metadataVersionOf } from '../metadataParams';
import { sharedEncoder } from '../sharedForms';
import { parseAt } from '../params';
import { RUNTIME_FAMILY, type RuntimeRouteName } from './routes';

/** A reply whose bytes are the same at every block of a runtime is compressed once per runtime, not per request. */
function withSharedForms(reply: Reply, answer: AnswerAt): Reply {
  return answer.sharedKey === undefined ? reply : { ...reply, encoded: sharedEncoder(answer.sharedKey, answer.json) };
}

export function runtimeHandlers(chain: ChainServices): FamilyHandlers<RuntimeRouteName> {
  return {
    async spec(req) {
      const answer = await chain.forRequest(req.stats).runtime.spec(parseAt(req.query.at));
      return replyAt(answer, `spec-${RUNTIME_FAMILY.formatVersion}`);
    },
    async metadata(req) {
      const answer = await chain.forRequest(req.stats).runtime.metadata(parseAt(req.query.at), 'rpc');
      return withSharedForms(replyAt(answer, `metadata-${RUNTIME_FAMILY.formatVersion}`), answer);
    },
    async metadataVersions(req) {
      const answer = await chain.forRequest(req.stats).runtime.metadataVersions(parseAt(req.query.at));
      return replyAt(answer, `metadata-versions-${RUNTIME_FAMILY.formatVersion}`);
    },
    async metadataAtVersion(req) {
      const at = parseAt(req.query.at);
      const version = metadataVersionOf(req.params.metadataVersion);
      const answer = await chain.forRequest(req.stats).runtime.metadata(at, version);
      return withSharedForms(replyAt(answer, `metadata-v${version}-${RUNTIME_FAMILY.formatVersion}`), answer);
    },
    async code(req) {
      const answer = await chain.forRequest(req.stats).runtime.code(parseAt(req.query.at));
      return replyAt(answer, `code-${RUNTIME_FAMILY.formatVersion}`);
    },
  };
}
