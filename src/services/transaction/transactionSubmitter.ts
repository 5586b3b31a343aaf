// Submitting a signed extrinsic (sidecar's POST /transaction): checked as an extrinsic
// of the runtime first, then handed to the node exactly once (NodeClient.submitExtrinsic:
// never sent again, never batched with another call). A submission whose answer never
// came may or may not be in the pool: the client is told so, with the hash to look for.
import { blake2AsHex } from '@polkadot/util-crypto';

import { ApiError, TransactionError } from '../../errors';
import type { TieredCache } from '../../cache/tieredCache';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { NodeRpcError, NodeThrottledError, NodeTimeoutError, NodeUnavailableError } from '../../rpc/nodeErrors';
import { fetchVersion, knownVersion } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { Runtime, RuntimeRegistry } from '../runtimes';
import { bytesOf, notAnExtrinsic } from './submittedTx';
import { rejectionReason } from './rejections';

export class TransactionSubmitter {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /**
   * The finalized block's runtime when its version is known, else the newest loaded: the node checks
   * the transaction itself, this check only spares it what is not an extrinsic at all, without a call.
   */
  private async runtimeToCheckWith(): Promise<Runtime> {
    const { hash } = await this.ids.at('finalized');
    const version = await knownVersion(this.cache, hash);
    if (!version && this.runtimes.newest) return this.runtimes.newest;
    return this.runtimes.get(version ?? (await fetchVersion(this.node, this.cache, hash)), hash);
  }

  /** The hash the node gives the transaction; `sent` is the body's `tx` as given, for errors. */
  async submit(tx: Hex, sent: unknown): Promise<Hex> {
    const bytes = bytesOf(tx);
    const runtime = await this.runtimeToCheckWith();
    const refused = notAnExtrinsic(runtime.registry, bytes);
    if (refused) throw new TransactionError('Failed to parse transaction.', sent, refused);
    // Not connected: nothing was sent, and the ordinary 503 says so.
    if (!this.node.isConnected) throw new NodeUnavailableError('not connected');
    try {
      return await this.node.submitExtrinsic(tx);
    } catch (error) {
      if (error instanceof NodeRpcError) throw new TransactionError('Failed to submit transaction.', sent, error.message, undefined, rejectionReason(error));
      if (error instanceof NodeThrottledError) throw error;
      if (error instanceof NodeTimeoutError || error instanceof NodeUnavailableError) {
        const status = error instanceof NodeTimeoutError ? 504 : 503;
        throw new ApiError(
          status,
          `The node did not confirm the submission: the transaction may or may not have been submitted. Look for ${blake2AsHex(bytes, 256)} ` +
            "(GET /extrinsics/{hash}, or the node's pool) before sending it again.",
        );
      }
      throw error;
    }
  }
}
