// HTTP for `/pallets/staking`: the flags (useRcBlock's among them), then `at`, checked before the node is asked.
import { RELAY_SETTING } from '../../config';
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { RelayLink } from '../../services/relayLink';
import { badRequest } from '../../errors';
import { isUInt } from '../params';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { STAKING_FAMILY, type StakingRouteName } from './routes';

const NO_RELAY = `Staking progress on an Asset Hub needs its relay chain's session and BABE facts: set ${RELAY_SETTING}`;

/** `relay`: the relay chain (an Asset Hub's progress reads it), or why there is none. */
export function stakingHandlers(chain: ChainServices, relay?: RelayOption): FamilyHandlers<StakingRouteName> {
  return {
    async progress(req) {
      const choice = relayChoiceOf(req, relay);
      const link = relay instanceof RelayLink ? relay.forRequest(req.stats) : undefined;
      const relayReads = link ? () => link.relayServices().staking : undefined;
      const services = chain.forRequest(req.stats);
      return answerAtOrIncluded(req, choice, `staking-progress-${STAKING_FAMILY.formatVersion}`, (at) => services.staking.progress(at, relayReads, NO_RELAY));
    },
    async poolsInfo(req) {
      const choice = relayChoiceOf(req, relay);
      const services = chain.forRequest(req.stats);
      return answerAtOrIncluded(req, choice, `pools-info-${STAKING_FAMILY.formatVersion}`, (at) => services.staking.poolsInfo(at));
    },
    async pool(req) {
      const text = typeof req.params.poolId === 'string' ? req.params.poolId : '';
      const poolId = Number(text);
      if (!isUInt(poolId)) throw badRequest('`poolId` path param is not a number');
      const choice = relayChoiceOf(req, relay);
      const withMetadata = req.flags().metadata === true;
      const services = chain.forRequest(req.stats);
      const tag = `pool-${poolId}-${withMetadata}-${STAKING_FAMILY.formatVersion}`;
      return answerAtOrIncluded(req, choice, tag, (at) => services.staking.pool(at, poolId, withMetadata));
    },
    async validators(req) {
      const choice = relayChoiceOf(req, relay);
      const services = chain.forRequest(req.stats);
      return answerAtOrIncluded(req, choice, `staking-validators-${STAKING_FAMILY.formatVersion}`, (at) => services.staking.validators(at));
    },
  };
}
