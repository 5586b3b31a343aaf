// HTTP for `/accounts`: each route reads its parameters, asks the services, and returns one answer value.
// Checked in sidecar's order: the address, then the flags (useRcBlock's among them), then `at`.
import { u8aToHex } from '@polkadot/util';
import { blake2AsHex } from '@polkadot/util-crypto';

import { RELAY_SETTING } from '../../config';
import { badRequest } from '../../errors';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { Hex } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { parseAccount } from '../../services/accounts/addresses';
import { inclusionHeight } from '../../services/accounts/inclusionSearch';
import type { RelayHeight } from '../../services/accounts/vestingInfo';
import { validateAddress } from '../../services/accounts/validate';
import { compareAddresses } from '../../services/accounts/compare';
import { convertAccount } from '../../services/accounts/convert';
import { parsePrefix, parseScheme, readComparedAddresses } from './addressQuery';
import type { ChainServices } from '../../services/chain';
import { replyAt } from '../answers';
import { parseAt, readFlags, type ParamOptions } from '../params';
import { assetHandlers } from './assetHandlers';
import { parseRcBlockFormat, relayAnswer, relayLinkOf, type Piece, type RelayOption } from '../relayAnswer';
import { ACCOUNTS_FAMILY, type AccountsRouteName } from './routes';

const NO_RELAY_BLOCK = 'useRcBlock is not served on this route';

const accountIdOf = (req: RouteRequest) => (typeof req.params.accountId === 'string' ? req.params.accountId : '');

/** `relay`: what useRcBlock=true reads through (this chain's relay link, or why there is none). */
export function accountsHandlers(chain: ChainServices, options: ParamOptions, relay?: RelayOption): FamilyHandlers<AccountsRouteName> {
  const readParams = (req: RouteRequest, route: AccountsRouteName) =>
    readFlags(req, ACCOUNTS_FAMILY.routes[route], ACCOUNTS_FAMILY.parameters, options, NO_RELAY_BLOCK);
  return {
    async balanceInfo(req) {
      const parsed = parseAccount(accountIdOf(req));
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
      return replyAt(answer, `balance-${asked}-${ACCOUNTS_FAMILY.formatVersion}`, ignoredParams);
    },
    async vestingInfo(req) {
      const parsed = parseAccount(accountIdOf(req));
      if (parsed.kind === 'invalid') throw badRequest(parsed.reason);
      const { flags, ignoredParams } = readParams(req, 'vestingInfo');
      const format = parseRcBlockFormat(req.query.useRcBlockFormat, flags.useRcBlock === true);
      const relayLink = flags.useRcBlock === true ? relayLinkOf(relay) : undefined;
      const at = parseAt(req.query.at);
      const query = { account: parsed.account, ethereum: parsed.kind === 'ethereum', includeClaimable: flags.includeClaimable === true };
      const services = chain.forRequest(req.stats);
      if (relayLink) {
        const link = relayLink.forRequest(req.stats);
        // The relay block asked for is the one that included each block: its height is the schedules' clock there.
        const { relayBlock, hashes } = await link.includedBy(at);
        const read = async (hash: Hex) => ({ json: (await services.vesting.vestingInfo({ kind: 'hash', hash }, query, { known: relayBlock.number })).json });
        return { body: relayAnswer(relayBlock, await includedItems(services, hashes, read), format), ignoredParams };
      }
      const relayHeight: RelayHeight =
        typeof relay === 'object'
          ? { search: (hash, relayParent) => inclusionHeight(relay.forRequest(req.stats), hash, relayParent) }
          : { missing: `includeClaimable at this block needs the relay chain's block numbers: set ${RELAY_SETTING}` };
      const answer = await services.vesting.vestingInfo(at, query, relayHeight);
      const asked = blake2AsHex(`${u8aToHex(parsed.account)}/${query.includeClaimable}`, 64).slice(2);
      return replyAt(answer, `vesting-${asked}-${ACCOUNTS_FAMILY.formatVersion}`, ignoredParams);
    },
    async proxyInfo(req) {
      const parsed = parseAccount(accountIdOf(req));
      if (parsed.kind === 'invalid') throw badRequest(parsed.reason);
      const { flags, ignoredParams } = readParams(req, 'proxyInfo');
      const format = parseRcBlockFormat(req.query.useRcBlockFormat, flags.useRcBlock === true);
      const relayLink = flags.useRcBlock === true ? relayLinkOf(relay) : undefined;
      const at = parseAt(req.query.at);
      const query = { account: parsed.account, ethereum: parsed.kind === 'ethereum' };
      const services = chain.forRequest(req.stats);
      if (relayLink) {
        const read = async (hash: Hex) => ({ json: (await services.proxies.proxyInfo({ kind: 'hash', hash }, query)).json });
        const { relayBlock, items } = await relayLink.forRequest(req.stats).eachIncluded(at, read);
        return { body: relayAnswer(relayBlock, items, format), ignoredParams };
      }
      const answer = await services.proxies.proxyInfo(at, query);
      const asked = blake2AsHex(u8aToHex(parsed.account), 64).slice(2);
      return replyAt(answer, `proxies-${asked}-${ACCOUNTS_FAMILY.formatVersion}`, ignoredParams);
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

/** Each included block's answer with its timestamp, read in one wave, in the order the relay block included them. */
function includedItems(services: ChainServices, hashes: Hex[], read: (hash: Hex) => Promise<Piece>) {
  return wave(
    hashes.map(async (hash) => {
      const [value, ahTimestamp] = await Promise.all([read(hash), services.reads.timestampAt(hash)]);
      return { value, ahTimestamp };
    }),
  );
}
