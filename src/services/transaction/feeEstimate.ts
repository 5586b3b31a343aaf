// A signed extrinsic's fee estimate (sidecar's POST /transaction/fee-estimate): the
// runtime's TransactionPaymentApi_query_info at the finalized head, which fastcar
// follows without asking. The same transaction at the same block gets the same
// answer, kept in the cache under the block's hash and the transaction's blake2; the
// same estimate asked by several clients at once is made once (a wallet fleet polling
// one transaction, or a retrying client, costs the node one runtime call).
import type { RuntimeDispatchInfo } from '@polkadot/types/interfaces';
import { blake2AsHex } from '@polkadot/util-crypto';

import type { SingleFlight } from '../../cache/singleFlight';
import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { TransactionError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { NodeRpcError } from '../../rpc/nodeErrors';
import { wave } from '../../rpc/requestStats';
import { fetchVersion, knownVersion } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import { queryInfo } from '../fees';
import type { Runtime, RuntimeRegistry } from '../runtimes';
import { bytesOf, lengthPrefixDisagrees, notAnExtrinsic } from './submittedTx';

/** Sidecar's summary for every estimate it cannot make. */
const CANNOT_ESTIMATE = 'Unable to fetch fee info';

export class FeeEstimates {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
    /** Estimates in flight, shared by every request's service. */
    private readonly inFlight: SingleFlight<string>,
  ) {}

  /**
   * `{weight, class, partialFee}` as JSON text, at the finalized head. One call (query_info) once the
   * block's runtime version is known (kept per hash after any read there); on a block not read yet,
   * two calls in one wave: its version beside the estimate made with the newest runtime loaded (made
   * again in the rare case the block's runtime is another). None for a transaction already estimated
   * at that block. `sent` is the body's `tx` as given, for errors.
   */
  async estimate(tx: `0x${string}`, sent: unknown): Promise<string> {
    const { hash } = await this.ids.at('finalized');
    const bytes = bytesOf(tx);
    const key = `fee:${hash}:${blake2AsHex(bytes, 256)}`;
    const kept = await this.cache.get(key);
    if (kept) return kept;
    const { promise, joined } = this.inFlight.run(key, () => this.made(hash, bytes, key, sent));
    try {
      return await promise;
    } catch (error) {
      // A refusal names the `tx` as each client sent it (another may have spelled the same bytes otherwise).
      if (joined && error instanceof TransactionError) {
        throw new TransactionError(error.summary, sent, error.explanation, error.at, error.reason, error.status);
      }
      throw error;
    }
  }

  /** The estimate asked of the node, and kept. */
  private async made(hash: Hex, bytes: Uint8Array, key: string, sent: unknown): Promise<string> {
    const at = { hash };
    const known = await knownVersion(this.cache, hash);
    const guess = known ? undefined : this.runtimes.newest;
    let info: RuntimeDispatchInfo;
    const refusedByGuess = guess ? notAnExtrinsic(guess.registry, bytes) : undefined;
    // Refused whatever the block's runtime: no call to learn which it is.
    if (refusedByGuess && lengthPrefixDisagrees(bytes)) throw new TransactionError(CANNOT_ESTIMATE, sent, refusedByGuess, at);
    if (guess && refusedByGuess === undefined) {
      // Settled either way: a failure made with the wrong runtime is not the answer.
      const guessed = this.ask(guess, hash, bytes, sent, at).then(
        (made) => ({ made }),
        (failed: unknown) => ({ failed }),
      );
      const [version, answer] = await wave([fetchVersion(this.node, this.cache, hash), guessed] as const);
      const runtime = await this.runtimes.get(version, hash);
      if (runtime.specName === guess.specName && runtime.specVersion === guess.specVersion) {
        if (!('made' in answer)) throw answer.failed;
        info = answer.made;
      } else {
        info = await this.checkedAsk(runtime, hash, bytes, sent, at);
      }
    } else {
      const runtime = await this.runtimes.get(known ?? (await fetchVersion(this.node, this.cache, hash)), hash);
      info = await this.checkedAsk(runtime, hash, bytes, sent, at);
    }
    const json = JSON.stringify(toSidecarJson(info));
    this.cache.set(key, json);
    return json;
  }

  /** The estimate once the bytes are known to be an extrinsic of `runtime` (a 400 before any call else). */
  private checkedAsk(runtime: Runtime, hash: Hex, bytes: Uint8Array, sent: unknown, at: { hash: Hex }): Promise<RuntimeDispatchInfo> {
    const refused = notAnExtrinsic(runtime.registry, bytes);
    if (refused) throw new TransactionError(CANNOT_ESTIMATE, sent, refused, at);
    return this.ask(runtime, hash, bytes, sent, at);
  }

  private async ask(runtime: Runtime, hash: Hex, bytes: Uint8Array, sent: unknown, at: { hash: Hex }): Promise<RuntimeDispatchInfo> {
    const { registry, hasTransactionPaymentApi } = runtime;
    try {
      return await queryInfo({ node: this.node, registry, parentHash: hash, hasTransactionPaymentApi }, bytes);
    } catch (error) {
      // The runtime's own refusal (say, a call it cannot read): the transaction's fault, not the node's.
      if (error instanceof NodeRpcError) throw new TransactionError(CANNOT_ESTIMATE, sent, error.message, at);
      throw error;
    }
  }
}
