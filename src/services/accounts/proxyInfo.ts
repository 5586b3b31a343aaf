// The proxies an account has named and the deposit they hold (Proxy.Proxies), as
// sidecar's /accounts/{id}/proxy-info answers them: once `at` is resolved, one wave
// (the entry beside the runtime version unless kept, and the header only for a hash).
import type { Tuple } from '@polkadot/types';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { readResolvedAt, type AtBlock, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { RuntimeRegistry } from '../runtimes';
import { accountMapKey, checkAccountBytes, mapLayoutOf, PROXIES_MAP, readMapValue } from './accountMaps';
import { entriesApart, entriesTogether, entryOf } from '../shared/storage/storageBatch';

export interface AccountQuery {
  /** The account's bytes, and whether the client gave them as a 20-byte Ethereum address. */
  account: Uint8Array;
  ethereum: boolean;
}

export class AccountProxies {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  async proxyInfo(at: AtBlock, query: AccountQuery): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const key = accountMapKey(PROXIES_MAP, query.account);
    const [read, together] = await wave([readResolvedAt(this.node, this.cache, block), entriesTogether(this.node, [key], block.hash)] as const);
    const stored = together ?? (await entriesApart(this.node, [key], block.hash));
    const { registry } = await this.runtimes.get(read.version, read.hash);
    const layout = mapLayoutOf(registry, PROXIES_MAP);
    if (!layout) throw badRequest('Proxy pallet does not exist on the specified blocks runtime version');
    checkAccountBytes(query.account, query.ethereum, layout.accountIdBytes);
    const [delegates, deposit] = (readMapValue(registry, layout, entryOf(stored, key)) as Tuple).toArray();
    const body = {
      at: { hash: read.hash, height: String(read.number) },
      delegatedAccounts: toSidecarJson(delegates),
      depositHeld: toSidecarJson(deposit),
    };
    return { json: JSON.stringify(body), hash: read.hash, final: read.final };
  }
}
