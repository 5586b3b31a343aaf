// HTTP for the `/coretime` routes.
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { AtBlock, AnswerAt } from '../../services/shared/at/blockAt';
import type { ChainServices } from '../../services/chain';
import type { CoretimeReads } from '../../services/coretime/coretimeReads';
import { replyAt } from '../answers';
import { parseAt } from '../params';
import { CORETIME_FAMILY, type CORETIME_ROUTES } from './routes';

type RouteName = keyof typeof CORETIME_ROUTES;

export function coretimeHandlers(chain: ChainServices): FamilyHandlers<RouteName> {
  const answered = (route: RouteName, read: (coretime: CoretimeReads, at: AtBlock) => Promise<AnswerAt>) => async (req: RouteRequest) => {
    const answer = await read(chain.forRequest(req.stats).coretime, parseAt(req.query.at));
    return replyAt(answer, `coretime-${route}-${CORETIME_FAMILY.formatVersion}`);
  };
  const brokerRoute = (route: 'leases' | 'regions' | 'renewals' | 'reservations') => answered(route, (coretime, at) => coretime.brokerRoute(at, route));
  return {
    info: answered('info', (coretime, at) => coretime.info(at)),
    overview: answered('overview', (coretime, at) => coretime.overview(at)),
    leases: brokerRoute('leases'),
    regions: brokerRoute('regions'),
    renewals: brokerRoute('renewals'),
    reservations: brokerRoute('reservations'),
  };
}
