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
import { parseAt } from '../params';
import { assetHandlers } from './assetHandlers';
import { answerAtOrIncluded, relayAnswer, relayChoiceOf, type Piece, type RelayOption } from '../relayAnswer';
import { ACCOUNTS_FAMILY, type AccountsRouteName } from './routes';

const accountIdOf = (req: RouteRequest) => (typeof req.params.accountId === 'string' ? req.params.accountId : '');

/** The account the path names (SS58 or Ethereum), or sidecar's 400. */
function accountOf(req: RouteRequest) {
  const parsed = parseAccount(accountIdOf(req));
  if (parsed.kind === 'invalid') throw badRequest(parsed.reason);
  return parsed;
}

/** `relay`: what useRcBlock=true reads through (this chain's relay link, or why there is none). */
export function accountsHandlers(chain: ChainServices, relay?: RelayOption): FamilyHandlers<AccountsRouteName> {
  return {
    async balanceInfo(req) {
      const parsed = accountOf(req);
      const choice = relayChoiceOf(req, relay);
      const token = typeof req.query.token === 'string' ? req.query.token : undefined;
      const denominated = req.flags().denominated === true;
      const query = { account: parsed.account, ethereum: parsed.kind === 'ethereum', token, denominated };
      const services = chain.forRequest(req.stats);
      // The same block's answer differs by account, token and denomination: all in the tag.
      const asked = blake2AsHex(`${u8aToHex(parsed.account)}/${token ?? ''}/${denominated}`, 64).slice(2);
      return answerAtOrIncluded(req, choice, `balance-${asked}-${ACCOUNTS_FAMILY.formatVersion}`, (at) => services.accounts.balanceInfo(at, query));
    },
    async vestingInfo(req) {
      const parsed = accountOf(req);
      const { relayLink, format } = relayChoiceOf(req, relay);
      const at = parseAt(req.query.at);
      const query = { account: parsed.account, ethereum: parsed.kind === 'ethereum', includeClaimable: req.flags().includeClaimable === true };
      const services = chain.forRequest(req.stats);
      if (relayLink) {
        const link = relayLink.forRequest(req.stats);
        // The relay block asked for is the one that included each block: its height is the schedules' clock there.
        const { relayBlock, hashes } = await link.includedBy(at);
        const read = async (hash: Hex) => ({ json: (await services.vesting.vestingInfo({ kind: 'hash', hash }, query, { known: relayBlock.number })).json });
        return { body: relayAnswer(relayBlock, await includedItems(services, hashes, read), format) };
      }
      const relayHeight: RelayHeight =
        typeof relay === 'object'
          ? { search: (hash, relayParent) => inclusionHeight(relay.forRequest(req.stats), hash, relayParent) }
          : { missing: `includeClaimable at this block needs the relay chain's block numbers: set ${RELAY_SETTING}` };
      const answer = await services.vesting.vestingInfo(at, query, relayHeight);
      const asked = blake2AsHex(`${u8aToHex(parsed.account)}/${query.includeClaimable}`, 64).slice(2);
      return replyAt(answer, `vesting-${asked}-${ACCOUNTS_FAMILY.formatVersion}`);
    },
    async proxyInfo(req) {
      const parsed = accountOf(req);
      const choice = relayChoiceOf(req, relay);
      const query = { account: parsed.account, ethereum: parsed.kind === 'ethereum' };
      const services = chain.forRequest(req.stats);
      const asked = blake2AsHex(u8aToHex(parsed.account), 64).slice(2);
      return answerAtOrIncluded(req, choice, `proxies-${asked}-${ACCOUNTS_FAMILY.formatVersion}`, (at) => services.proxies.proxyInfo(at, query));
    },
    async validate(req) {
      return { body: JSON.stringify(validateAddress(accountIdOf(req))) };
    },
    // Checked in sidecar's order: publicKey, scheme, prefix, then the hex and the network.
    async convert(req) {
      const request = { scheme: parseScheme(req.query.scheme), prefix: parsePrefix(req.query.prefix), publicKey: req.flags().publicKey === true };
      return { body: JSON.stringify(convertAccount(accountIdOf(req), request)) };
    },
    async compare(req) {
      return { body: JSON.stringify(compareAddresses(readComparedAddresses(req.query))) };
    },
    ...assetHandlers(chain, relay),
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
