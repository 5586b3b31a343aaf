// HTTP for `/pallets/on-going-referenda`.
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { REFERENDA_FAMILY } from './routes';

export function referendaHandlers(chain: ChainServices, relay?: RelayOption): FamilyHandlers<'ongoingReferenda'> {
  return {
    async ongoingReferenda(req) {
      const choice = relayChoiceOf(req, relay);
      const services = chain.forRequest(req.stats);
      return answerAtOrIncluded(req, choice, `referenda-${REFERENDA_FAMILY.formatVersion}`, (at) => services.referenda.ongoing(at));
    },
  };
}
