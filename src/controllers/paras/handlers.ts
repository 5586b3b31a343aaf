// HTTP for the relay chain's `/paras` routes.
import { badRequest } from '../../errors';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { AtBlock, AnswerAt } from '../../services/shared/at/blockAt';
import type { ChainServices } from '../../services/chain';
import type { ParasReads } from '../../services/paras/parasReads';
import { replyAt } from '../answers';
import { isUInt, parseAt } from '../params';
import { PARAS_FAMILY, type PARAS_ROUTES } from './routes';

const MAX_PARA_ID = 0xffff_ffff;

/** A para id as sidecar reads it (any whole number JavaScript's Number reads), bounded by the runtime's u32. */
function paraIdOf(req: RouteRequest): number {
  const text = typeof req.params.paraId === 'string' ? req.params.paraId : '';
  const paraId = Number(text);
  if (!isUInt(paraId)) throw badRequest('paraId must be an integer');
  if (paraId > MAX_PARA_ID) throw badRequest(`paraId must be at most ${MAX_PARA_ID}`);
  return paraId;
}

type RouteName = keyof typeof PARAS_ROUTES;

export function parasHandlers(chain: ChainServices): FamilyHandlers<RouteName> {
  /** Reads `at` (after the flags, as sidecar), then answers `read` tagged for clients to keep. */
  const answered = (route: RouteName, tag: (req: RouteRequest) => string, read: (paras: ParasReads, at: AtBlock, req: RouteRequest) => Promise<AnswerAt>) => {
    return async (req: RouteRequest) => {
      const at = parseAt(req.query.at);
      const answer = await read(chain.forRequest(req.stats).paras, at, req);
      return replyAt(answer, `paras-${route}-${tag(req)}-${PARAS_FAMILY.formatVersion}`);
    };
  };
  const plain = () => '';
  return {
    paras: answered('paras', plain, (paras, at) => paras.paras(at)),
    // Sidecar leaves the holders out only for the exact text `false`.
    leasesCurrent: answered(
      'leasesCurrent',
      (req) => String(req.query.currentLeaseHolders !== 'false'),
      (paras, at, req) => paras.leasesCurrent(at, req.query.currentLeaseHolders !== 'false'),
    ),
    auctionsCurrent: answered('auctionsCurrent', plain, (paras, at) => paras.auctionsCurrent(at)),
    crowdloans: answered('crowdloans', plain, (paras, at) => paras.crowdloans(at)),
    leaseInfo: answered(
      'leaseInfo',
      (req) => String(paraIdOf(req)),
      (paras, at, req) => paras.leaseInfo(at, paraIdOf(req)),
    ),
    crowdloanInfo: answered(
      'crowdloanInfo',
      (req) => String(paraIdOf(req)),
      (paras, at, req) => paras.crowdloanInfo(at, paraIdOf(req)),
    ),
    includedCandidates: answered('includedCandidates', plain, (paras, at) => paras.headCandidates(at, 'CandidateIncluded')),
    backedCandidates: answered('backedCandidates', plain, (paras, at) => paras.headCandidates(at, 'CandidateBacked')),
  };
}
