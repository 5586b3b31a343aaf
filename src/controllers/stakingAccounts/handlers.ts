// HTTP for `/accounts/{accountId}/staking-info` and `/staking-payouts`, checked in sidecar's
// order: the address, the flags (useRcBlock's among them), `at`, then `era` and `depth`
// (their formats here, their bounds against the chain's eras in the service).
import { u8aToHex } from '@polkadot/util';

import { badRequest } from '../../errors';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import { parseAccount } from '../../services/accounts/addresses';
import type { ChainServices } from '../../services/chain';
import { readFlags, type ParamOptions } from '../params';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { STAKING_ACCOUNTS_FAMILY, type StakingAccountsRouteName } from './routes';

const NO_RELAY_BLOCK = 'useRcBlock is not served on this route';

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

export function stakingAccountsHandlers(chain: ChainServices, options: ParamOptions, relay?: RelayOption): FamilyHandlers<StakingAccountsRouteName> {
  const checked = (req: RouteRequest, route: StakingAccountsRouteName) => {
    const { flags, ignoredParams } = readFlags(req, STAKING_ACCOUNTS_FAMILY.routes[route], STAKING_ACCOUNTS_FAMILY.parameters, options, NO_RELAY_BLOCK);
    return { ignoredParams, choice: relayChoiceOf(req, flags.useRcBlock === true, relay) };
  };
  return {
    async stakingInfo(req) {
      const { stash, address } = stashOf(req);
      const { ignoredParams, choice } = checked(req, 'stakingInfo');
      // Sidecar leaves the claims out only for the exact text `false`.
      const withClaims = req.query.includeClaimedRewards !== 'false';
      const services = chain.forRequest(req.stats);
      const tag = `staking-info-${u8aToHex(stash).slice(2)}-${withClaims}-${STAKING_ACCOUNTS_FAMILY.formatVersion}`;
      return answerAtOrIncluded(req, choice, tag, ignoredParams, (at) => services.stakingInfo.info(at, stash, address, withClaims));
    },
    async stakingPayouts(req) {
      const { stash } = stashOf(req);
      const { ignoredParams, choice } = checked(req, 'stakingPayouts');
      const era = wholeNumberParam(req.query.era, 'era');
      // Sidecar reads a repeated depth as its values joined by commas (so, no number).
      const depthRaw = Array.isArray(req.query.depth) ? req.query.depth.join(',') : req.query.depth;
      const depth = wholeNumberParam(depthRaw, 'depth') ?? 1;
      const unclaimedOnly = req.query.unclaimedOnly !== 'false';
      const services = chain.forRequest(req.stats);
      const signal = req.clientGone();
      const tag = `staking-payouts-${u8aToHex(stash).slice(2)}-${depth}-${era ?? 'last'}-${unclaimedOnly}-${STAKING_ACCOUNTS_FAMILY.formatVersion}`;
      return answerAtOrIncluded(req, choice, tag, ignoredParams, (at) =>
        services.stakingPayouts.payouts(at, { account: stash, depth, era, unclaimedOnly, signal }),
      );
    },
  };
}
