// HTTP for `/accounts/{accountId}/staking-info` and `/staking-payouts`, checked in sidecar's
// order: the address, the flags (useRcBlock's among them), `at`, then `era` and `depth`
// (their formats here, their bounds against the chain's eras in the service).
import { u8aToHex } from '@polkadot/util';

import { badRequest } from '../../errors';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import { parseAccount } from '../../services/accounts/addresses';
import type { ChainServices } from '../../services/chain';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { STAKING_ACCOUNTS_FAMILY, type StakingAccountsRouteName } from './routes';

/** A whole number query parameter as sidecar reads it (absent or empty: the default), with its messages. */
export function wholeNumberParam(raw: unknown, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw badRequest(`Incorrect argument quantity or type passed in for ${name} query param`);
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw badRequest(`${name} query param is an invalid number`);
  return value;
}

/** The stash a path names; an Ethereum address is none on these chains. */
function stashOf(req: RouteRequest): { stash: Uint8Array; address: string } {
  const address = typeof req.params.accountId === 'string' ? req.params.accountId : '';
  const parsed = parseAccount(address);
  if (parsed.kind === 'invalid') throw badRequest(parsed.reason);
  if (parsed.kind === 'ethereum') throw badRequest(`The address ${address} is not a stash address.`);
  return { stash: parsed.account, address };
}

export function stakingAccountsHandlers(chain: ChainServices, relay?: RelayOption): FamilyHandlers<StakingAccountsRouteName> {
  return {
    async stakingInfo(req) {
      const { stash, address } = stashOf(req);
      const choice = relayChoiceOf(req, relay);
      // Sidecar leaves the claims out only for the exact text `false`.
      const withClaims = req.query.includeClaimedRewards !== 'false';
      const services = chain.forRequest(req.stats);
      const tag = `staking-info-${u8aToHex(stash).slice(2)}-${withClaims}-${STAKING_ACCOUNTS_FAMILY.formatVersion}`;
      return answerAtOrIncluded(req, choice, tag, (at) => services.stakingInfo.info(at, stash, address, withClaims));
    },
    async stakingPayouts(req) {
      const { stash } = stashOf(req);
      const choice = relayChoiceOf(req, relay);
      const era = wholeNumberParam(req.query.era, 'era');
      // Sidecar reads a repeated depth as its values joined by commas (so, no number).
      const depthRaw = Array.isArray(req.query.depth) ? req.query.depth.join(',') : req.query.depth;
      const depth = wholeNumberParam(depthRaw, 'depth') ?? 1;
      const unclaimedOnly = req.query.unclaimedOnly !== 'false';
      const services = chain.forRequest(req.stats);
      const signal = req.clientGone();
      const tag = `staking-payouts-${u8aToHex(stash).slice(2)}-${depth}-${era ?? 'last'}-${unclaimedOnly}-${STAKING_ACCOUNTS_FAMILY.formatVersion}`;
      return answerAtOrIncluded(req, choice, tag, (at) => services.stakingPayouts.payouts(at, { account: stash, depth, era, unclaimedOnly, signal }));
    },
  };
}
