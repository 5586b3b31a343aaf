// HTTP for the asset routes of `/accounts`, checked in sidecar's order: the address, the
// flags, the approval's `assetId` and `delegate`, `at`, then the asset ids. Every
// check is made before the node is asked.
import { u8aToHex } from '@polkadot/util';
import { blake2AsHex } from '@polkadot/util-crypto';

import type { JsonValue } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { RouteRequest } from '../../http/routes';
import { parseAccount } from '../../services/accounts/addresses';
import type { AssetIdInput } from '../../services/accounts/assetBalances';
import type { AssetPallet } from '../../services/accounts/assetStorage';
import type { ChainServices } from '../../services/chain';
import { isUInt, parseAt } from '../params';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { MAX_NAMED_ASSETS } from './assetRoutes';
import { ACCOUNTS_FAMILY } from './routes';

/** The account in the path, or sidecar's 400. */
function accountOf(req: RouteRequest): Uint8Array {
  const parsed = parseAccount(typeof req.params.accountId === 'string' ? req.params.accountId : '');
  if (parsed.kind === 'invalid') throw badRequest(parsed.reason);
  return parsed.account;
}

/** Every value given under `name[]` or `name` (repeated or once), in order. */
function listed(req: RouteRequest, name: string): string[] {
  const values = [req.query[`${name}[]`], req.query[name]].flatMap((value) => (Array.isArray(value) ? value : value === undefined ? [] : [value]));
  if (values.length > MAX_NAMED_ASSETS) throw badRequest(`At most ${MAX_NAMED_ASSETS} ${name} may be named in one request.`);
  return values.map(String);
}

/** Asset ids as sidecar reads them: JavaScript's Number() of each, a whole number. */
function assetIds(req: RouteRequest): number[] {
  return listed(req, 'assets').map((text) => {
    const id = Number(text);
    if (!isUInt(id)) throw badRequest(`Incorrect AssetId format: ${text} is not a positive integer.`);
    return id;
  });
}

/** XCM locations, each a versioned location's JSON (`{"v4": location}`): the location inside. */
function locations(req: RouteRequest): JsonValue[] {
  return listed(req, 'foreignAssets').map((text) => {
    const invalid = () => badRequest(`Invalid JSON format for multilocation: ${text}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalid();
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid();
    const entries = Object.entries(parsed);
    const [version, location] = entries[0] ?? [];
    if (entries.length !== 1 || !/^v[0-9]+$/i.test(version ?? '')) throw invalid();
    return location as JsonValue;
  });
}

/** The tag names everything the same block's answer differs by. */
const tagOf = (route: string, parts: unknown[]) => `${route}-${blake2AsHex(JSON.stringify(parts), 64).slice(2)}-${ACCOUNTS_FAMILY.formatVersion}`;

/** `relay`: what useRcBlock=true reads through (this chain's relay link, or why there is none). */
export function assetHandlers(chain: ChainServices, relay?: RelayOption) {
  const balances = (route: AssetRouteName, pallet: AssetPallet, idsOf: (req: RouteRequest) => AssetIdInput[]) => async (req: RouteRequest) => {
    const account = accountOf(req);
    const choice = relayChoiceOf(req, relay);
    parseAt(req.query.at);
    const assets = idsOf(req);
    const services = chain.forRequest(req.stats);
    return answerAtOrIncluded(req, choice, tagOf(route, [u8aToHex(account), assets]), (at) => services.accountAssets.balances(at, { pallet, account, assets }));
  };
  const approvals = (route: AssetRouteName, pallet: 'Assets' | 'PoolAssets') => async (req: RouteRequest) => {
    const owner = accountOf(req);
    const choice = relayChoiceOf(req, relay);
    const { delegate, assetId } = req.query;
    if (typeof delegate !== 'string' || typeof assetId !== 'string') throw badRequest('Must include a `delegate` and `assetId` query param');
    const id = Number(assetId);
    if (!isUInt(id)) throw badRequest('`assetId` provided is not a number.');
    const parsedDelegate = parseAccount(delegate);
    if (parsedDelegate.kind === 'invalid') throw badRequest(`delegate: ${parsedDelegate.reason}`);
    const query = { pallet, owner, delegate: parsedDelegate.account, assetId: id };
    const services = chain.forRequest(req.stats);
    return answerAtOrIncluded(req, choice, tagOf(route, [u8aToHex(owner), u8aToHex(query.delegate), id]), (at) => services.accountAssets.approval(at, query));
  };
  return {
    assetBalances: balances('assetBalances', 'Assets', assetIds),
    assetApprovals: approvals('assetApprovals', 'Assets'),
    poolAssetBalances: balances('poolAssetBalances', 'PoolAssets', assetIds),
    poolAssetApprovals: approvals('poolAssetApprovals', 'PoolAssets'),
    foreignAssetBalances: balances('foreignAssetBalances', 'ForeignAssets', locations),
  };
}

export type AssetRouteName = 'assetBalances' | 'assetApprovals' | 'poolAssetBalances' | 'poolAssetApprovals' | 'foreignAssetBalances';
