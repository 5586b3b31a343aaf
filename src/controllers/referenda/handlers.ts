// HTTP for `/pallets/on-going-referenda`.
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { readFlags, type ParamOptions } from '../params';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { REFERENDA_FAMILY } from './routes';

export function referendaHandlers(chain: ChainServices, options: ParamOptions, relay?: RelayOption): FamilyHandlers<'ongoingReferenda'> {
  return {
    async ongoingReferenda(req) {
      const { flags, ignoredParams } = readFlags(req, REFERENDA_FAMILY.routes.ongoingReferenda, REFERENDA_FAMILY.parameters, options, '');
      const choice = relayChoiceOf(req, flags.useRcBlock === true, relay);
      const services = chain.forRequest(req.stats);
      return answerAtOrIncluded(req, choice, `referenda-${REFERENDA_FAMILY.formatVersion}`, ignoredParams, (at) => services.referenda.ongoing(at));
    },
  };
}
