// HTTP for `/accounts`: each route reads its parameters, asks the services, and returns one answer value.
// Checked in sidecar's order: the address, then the flags, then `at`.
import { u8aToHex } from '@polkadot/util';
import { blake2AsHex } from '@polkadot/util-crypto';

import { badRequest } from '../../errors';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import { parseAddress } from '../../services/accounts/addresses';
import { validateAddress } from '../../services/accounts/validate';
import type { ChainServices } from '../../services/chain';
import { replyAt } from '../answers';
import { parseAt, readFlags, type ParamOptions } from '../params';
import { ACCOUNTS_FAMILY, type AccountsRouteName } from './routes';

/** Bumped whenever the JSON these routes make for the same block changes, so old ETags stop matching. */
const FORMAT_VERSION = 1;

const NO_RELAY_BLOCK = 'useRcBlock is not served on this route';

const accountIdOf = (req: RouteRequest) => (typeof req.params.accountId === 'string' ? req.params.accountId : '');

export function accountsHandlers(chain: ChainServices, options: ParamOptions): FamilyHandlers<AccountsRouteName> {
  const readParams = (req: RouteRequest, route: AccountsRouteName) =>
    readFlags(req, ACCOUNTS_FAMILY.routes[route], ACCOUNTS_FAMILY.parameters, options, NO_RELAY_BLOCK);
  return {
    async balanceInfo(req) {
      const parsed = parseAddress(accountIdOf(req));
      if (parsed.kind === 'invalid') throw badRequest(parsed.reason);
      const { flags, ignoredParams } = readParams(req, 'balanceInfo');
      const at = parseAt(req.query.at);
      const token = typeof req.query.token === 'string' ? req.query.token : undefined;
      const denominated = flags.denominated === true;
      const query = { account: parsed.account, ethereum: parsed.kind === 'ethereum', token, denominated };
      const answer = await chain.forRequest(req.stats).accounts.balanceInfo(at, query);
      // The same block's answer differs by account, token and denomination: all in the tag.
      const asked = blake2AsHex(`${u8aToHex(parsed.account)}/${token ?? ''}/${denominated}`, 64).slice(2);
      return replyAt(answer, `balance-${asked}-${FORMAT_VERSION}`, ignoredParams);
    },
    async validate(req) {
      const { ignoredParams } = readParams(req, 'validate');
      return { body: JSON.stringify(validateAddress(accountIdOf(req))), ignoredParams };
    },
  };
}
