// HTTP for the routes about a chain's assets: the id, then the flags (useRcBlock's
// among them), then `at`, all checked before the node is asked.
import { badRequest } from '../../errors';
import type { FamilyHandlers, RouteRequest } from '../../http/routes';
import type { AtBlock, AnswerAt } from '../../services/shared/at/blockAt';
import type { ChainServices } from '../../services/chain';
import { isUInt } from '../params';
import { answerAtOrIncluded, relayChoiceOf, type RelayOption } from '../relayAnswer';
import { PALLET_ASSETS_FAMILY, type PalletAssetsRouteName } from './routes';

/** The path's asset id as sidecar reads it: a whole number, or its 400. */
function assetIdOf(req: RouteRequest): number {
  const text = typeof req.params.assetId === 'string' ? req.params.assetId : '';
  const id = Number(text);
  if (!isUInt(id)) throw badRequest('`assetId` path param is not a number');
  return id;
}

/** `relay`: what useRcBlock=true reads through (this chain's relay link, or why there is none). */
export function palletAssetsHandlers(chain: ChainServices, relay?: RelayOption): FamilyHandlers<PalletAssetsRouteName> {
  const answer = (req: RouteRequest, tag: string, read: (at: AtBlock) => Promise<AnswerAt>) =>
    answerAtOrIncluded(req, relayChoiceOf(req, relay), `${tag}-${PALLET_ASSETS_FAMILY.formatVersion}`, read);
  const service = (req: RouteRequest) => chain.forRequest(req.stats).palletAssets;
  return {
    async assetInfo(req) {
      const id = assetIdOf(req);
      return answer(req, `asset-${id}`, (at) => service(req).assetInfo(at, 'Assets', id));
    },
    async poolAssetInfo(req) {
      const id = assetIdOf(req);
      return answer(req, `pool-asset-${id}`, (at) => service(req).assetInfo(at, 'PoolAssets', id));
    },
    async foreignAssets(req) {
      return answer(req, 'foreign-assets', (at) => service(req).foreignAssets(at));
    },
    async liquidityPools(req) {
      return answer(req, 'pools', (at) => service(req).liquidityPools(at));
    },
    async nextPoolAssetId(req) {
      return answer(req, 'next-pool-id', (at) => service(req).nextPoolAssetId(at));
    },
  };
}
