// HTTP for `/pallets/on-going-referenda`.
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { readFlags, type ParamOptions } from '../params';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { REFERENDA_FAMILY } from './routes';

/** Bumped whenever the JSON this route makes for the same block changes, so old ETags stop matching. */
const FORMAT_VERSION = 1;

export function referendaHandlers(chain: ChainServices, options: ParamOptions, relay?: RelayOption): FamilyHandlers<'ongoingReferenda'> {
  return {
    async ongoingReferenda(req) {
      const { flags, ignoredParams } = readFlags(req, REFERENDA_FAMILY.routes.ongoingReferenda, REFERENDA_FAMILY.parameters, options, '');
      const choice = relayChoiceOf(req, flags.useRcBlock === true, relay);
      const services = chain.forRequest(req.stats);
      return answerAtOrIncluded(req, choice, `referenda-${FORMAT_VERSION}`, ignoredParams, (at) => services.referenda.ongoing(at));
    },
  };
}
