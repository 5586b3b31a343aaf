// HTTP for `/ahm-info`.
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { RelayLink } from '../../services/relayLink';
import { readFlags, type ParamOptions } from '../params';
import type { RelayOption } from '../relayAnswer';
import { AHM_FAMILY } from './routes';

/** `relay`: an Asset Hub's relay chain, whose migrator records the relay side when the table does not. */
export function ahmHandlers(chain: ChainServices, options: ParamOptions, relay?: RelayOption): FamilyHandlers<'ahmInfo'> {
  return {
    async ahmInfo(req) {
      const { ignoredParams } = readFlags(req, AHM_FAMILY.routes.ahmInfo, AHM_FAMILY.parameters, options, 'useRcBlock is not served on this route');
      const link = relay instanceof RelayLink ? relay.forRequest(req.stats) : undefined;
      const counterpart = link ? () => link.relayServices().ahm : undefined;
      return { body: await chain.forRequest(req.stats).ahm.info(counterpart), ignoredParams };
    },
  };
}
