// HTTP for `/accounts`: each route reads its parameters, asks the services, and returns one answer value.
// Checked in sidecar's order: the address, then the flags (useRcBlock's among them), then `at`.
import { u8aToHex } from '@polkadot/util';
import { blake2AsHex } from '@polkadot/util-crypto';

import { badRequest } from '../../errors';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { Hex } from '../../rpc/nodeClient';
import { parseAddress } from '../../services/accounts/addresses';
import { validateAddress } from '../../services/accounts/validate';
import { compareAddresses } from '../../services/accounts/compare';
import { convertAccount } from '../../services/accounts/convert';
import { parsePrefix, parseScheme, readComparedAddresses } from './addressQuery';
import type { ChainServices } from '../../services/chain';
import { replyAt } from '../answers';
import { parseAt, readFlags, type ParamOptions } from '../params';
import { parseRcBlockFormat, relayAnswer, relayLinkOf, type RelayOption } from '../relayAnswer';
import { assetHandlers } from './assetHandlers';
import { ACCOUNTS_FAMILY, type AccountsRouteName } from './routes';

/** Bumped whenever the JSON these routes make for the same block changes, so old ETags stop matching. */
const FORMAT_VERSION = 1;

const NO_RELAY_BLOCK = 'useRcBlock is not served on this route';

const accountIdOf = (req: RouteRequest) => (typeof req.params.accountId === 'string' ? req.params.accountId : '');

/** `relay`: what useRcBlock=true reads through (this chain's relay link, or why there is none). */
export function accountsHandlers(chain: ChainServices, options: ParamOptions, relay?: RelayOption): FamilyHandlers<AccountsRouteName> {
  const readParams = (req: RouteRequest, route: AccountsRouteName) =>
    readFlags(req, ACCOUNTS_FAMILY.routes[route], ACCOUNTS_FAMILY.parameters, options, NO_RELAY_BLOCK);
  return {
    async balanceInfo(req) {
      const parsed = parseAddress(accountIdOf(req));
      if (parsed.kind === 'invalid') throw badRequest(parsed.reason);
      const { flags, ignoredParams } = readParams(req, 'balanceInfo');
      const format = parseRcBlockFormat(req.query.useRcBlockFormat, flags.useRcBlock === true);
      const relayLink = flags.useRcBlock === true ? relayLinkOf(relay) : undefined;
      const at = parseAt(req.query.at);
      const token = typeof req.query.token === 'string' ? req.query.token : undefined;
      const denominated = flags.denominated === true;
      const query = { account: parsed.account, ethereum: parsed.kind === 'ethereum', token, denominated };
      const services = chain.forRequest(req.stats);
      if (relayLink) {
        // `at` is the relay chain's; its answer is never kept by clients (the relay block may not be final).
        const link = relayLink.forRequest(req.stats);
        const read = async (hash: Hex) => ({ json: (await services.accounts.balanceInfo({ kind: 'hash', hash }, query)).json });
        const { relayBlock, items } = await link.eachIncluded(at, read);
        return { body: relayAnswer(relayBlock, items, format), ignoredParams };
      }
      const answer = await services.accounts.balanceInfo(at, query);
      // The same block's answer differs by account, token and denomination: all in the tag.
      const asked = blake2AsHex(`${u8aToHex(parsed.account)}/${token ?? ''}/${denominated}`, 64).slice(2);
      return replyAt(answer, `balance-${asked}-${FORMAT_VERSION}`, ignoredParams);
    },
    async validate(req) {
      const { ignoredParams } = readParams(req, 'validate');
      return { body: JSON.stringify(validateAddress(accountIdOf(req))), ignoredParams };
    },
    // Checked in sidecar's order: publicKey, scheme, prefix, then the hex and the network.
    async convert(req) {
      const { flags, ignoredParams } = readParams(req, 'convert');
      const request = { scheme: parseScheme(req.query.scheme), prefix: parsePrefix(req.query.prefix), publicKey: flags.publicKey === true };
      return { body: JSON.stringify(convertAccount(accountIdOf(req), request)), ignoredParams };
    },
    async compare(req) {
      return { body: JSON.stringify(compareAddresses(readComparedAddresses(req.query))) };
    },
    ...assetHandlers(chain, readParams, relay),
  };
}
