// A signed extrinsic's fee estimate (sidecar's POST /transaction/fee-estimate): the
// runtime's TransactionPaymentApi_query_info at the finalized head, which fastcar
// follows without asking. The same transaction at the same block gets the same
// answer, kept in the cache under the block's hash and the transaction's blake2.
import { blake2AsHex } from '@polkadot/util-crypto';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { TransactionError } from '../../errors';
import { NodeRpcError, type NodeClient } from '../../rpc/nodeClient';
import { readAt } from '../blockAt';
import type { BlockIds } from '../blockIds';
import { queryInfo } from '../fees';
import type { RuntimeRegistry } from '../runtimes';
import { bytesOf, notAnExtrinsic } from './submittedTx';

/** Sidecar's summary for every estimate it cannot make. */
const CANNOT_ESTIMATE = 'Unable to fetch fee info';

export class FeeEstimates {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /**
   * `{weight, class, partialFee}` as JSON text. One call (query_info) once the finalized block's
   * hash and runtime version are known (its version is kept per hash after the first read at it);
   * none for a transaction already estimated at that block. `sent` is the body's `tx` as given, for errors.
   */
  async estimate(tx: `0x${string}`, sent: unknown): Promise<string> {
    const block = await readAt(this.node, this.ids, this.cache, 'finalized');
    const bytes = bytesOf(tx);
    const key = `fee:${block.hash}:${blake2AsHex(bytes, 256)}`;
    const kept = await this.cache.get(key);
    if (kept) return kept;
    const at = { hash: block.hash };
    const runtime = await this.runtimes.get(block.version, block.hash);
    const refused = notAnExtrinsic(runtime.registry, bytes);
    if (refused) throw new TransactionError(CANNOT_ESTIMATE, sent, refused, at);
    let info;
    try {
      const { registry, hasTransactionPaymentApi } = runtime;
      info = await queryInfo({ node: this.node, registry, parentHash: block.hash, hasTransactionPaymentApi }, bytes);
    } catch (error) {
      // The runtime's own refusal (say, a call it cannot read): the transaction's fault, not the node's.
      if (error instanceof NodeRpcError) throw new TransactionError(CANNOT_ESTIMATE, sent, error.message, at);
      throw error;
    }
    const json = JSON.stringify(toSidecarJson(info));
    this.cache.set(key, json);
    return json;
  }
}
