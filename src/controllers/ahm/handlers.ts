// HTTP for `/ahm-info`.
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { RelayLink } from '../../services/relayLink';
import type { RelayOption } from '../relayAnswer';

/** `relay`: an Asset Hub's relay chain, whose migrator records the relay side when the table does not. */
export function ahmHandlers(chain: ChainServices, relay?: RelayOption): FamilyHandlers<'ahmInfo'> {
  return {
    async ahmInfo(req) {
      const link = relay instanceof RelayLink ? relay.forRequest(req.stats) : undefined;
      const counterpart = link ? () => link.relayServices().ahm : undefined;
      return { body: await chain.forRequest(req.stats).ahm.info(counterpart) };
    },
  };
}
