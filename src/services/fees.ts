// Fee info per extrinsic, as sidecar reports it. Fees come from the
// TransactionFeePaid event when the runtime emitted one (no RPC at all);
// the rest are asked of the runtime at the parent block, all in one wave:
// the estimate, and where the runtime's weights are one number, the fee
// details that turn it into the fee actually charged (sidecar's postDispatch).
import { calc_partial_fee } from '@substrate/calc';
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { hexToU8a, u8aToHex, u8aConcat } from '@polkadot/util';
import type { FeeDetails, RuntimeDispatchInfo } from '@polkadot/types/interfaces';

import type { Hex, NodeClient } from '../rpc/nodeClient';
import { isMissingMethod, NodeTimeoutError, NodeUnavailableError } from '../rpc/nodeErrors';
import { wave } from '../rpc/requestStats';
import type { ExtrinsicFacts, SidecarExtrinsic } from './blocks/blockShape';
import { feeRulesFor, type FeeDetailsKnowledge } from './feeRules';
import { toSidecarJson, type JsonValue } from '../decode/codecJson';

export interface FeeContext {
  node: NodeClient;
  registry: TypeRegistry;
  parentHash: Hex;
  specName: string;
  specVersion: number;
  hasTransactionPaymentApi: boolean;
  feeDetails: FeeDetailsKnowledge;
  noFees: boolean;
}

/** Fills `info` of every extrinsic in place, following sidecar's rules for the runtime. */
export async function resolveFees(extrinsics: SidecarExtrinsic[], facts: ExtrinsicFacts[], context: FeeContext): Promise<void> {
  // With noFees every `info` stays `{}`, as sidecar leaves it.
  if (context.noFees) return;
  const { minCalcFeeRuntime } = feeRulesFor(context.specName);
  const pending: number[] = [];
  extrinsics.forEach((extrinsic, index) => {
    const fact = facts[index];
    if (!extrinsic.paysFee || !fact.isSigned) return;
    if (minCalcFeeRuntime === null) {
      extrinsic.info = { error: 'Fee calculation not supported for this network' };
    } else if (minCalcFeeRuntime > context.specVersion) {
      extrinsic.info = { error: `Fee calculation not supported for ${context.specVersion}#${context.specName}` };
    } else if (!fact.hasCompletionEvent) {
      extrinsic.info = { error: 'Unable to find success or failure event for extrinsic' };
    } else if (!fact.completion) {
      extrinsic.info = { error: 'Success or failure event for extrinsic does not specify weight' };
    } else if (fact.completion.feeFromEvent !== undefined) {
      extrinsic.info = {
        weight: fact.completion.weight,
        class: fact.completion.class,
        partialFee: fact.completion.feeFromEvent,
        kind: 'fromEvent',
      };
    } else {
      pending.push(index);
    }
  });
  if (pending.length === 0) return;

  // One wave: every estimate and, where the post-dispatch fee can be computed, every fee detail.
  const support = context.feeDetails.support(context.specName, context.specVersion);
  // A two-dimensional weight (refTime, proofSize) has no single number to scale the fee by: sidecar keeps the estimate.
  const oneDimensional = pending.map((index) => !isTwoDimensional(facts[index].completion!.weight));
  const queries = pending.map((index, i) => {
    const { bytes } = facts[index];
    return Promise.all([
      queryInfo(context, bytes),
      support !== 'notAvailable' && oneDimensional[i] ? queryFeeDetails(context, bytes).catch(undefinedUnlessNodeAway) : Promise.resolve(undefined),
    ]);
  });
  let answers: Awaited<(typeof queries)[number]>[];
  try {
    answers = await wave(queries);
  } catch (error) {
    // A runtime without the API on a node without the fee RPC: nowhere to ask, said per extrinsic as sidecar does.
    if (context.hasTransactionPaymentApi || !isMissingMethod(error)) throw error;
    for (const index of pending) extrinsics[index].info = { error: 'Rpc method payment::queryInfo is not available' };
    return;
  }
  pending.forEach((index, i) => {
    const [info, details] = answers[i];
    const completion = facts[index].completion!;
    let partialFee = info.partialFee.toString(10);
    let kind = 'preDispatch';
    if (details) {
      // No inclusion fee: an unsigned extrinsic, which pays nothing.
      const inclusion = details.inclusionFee.unwrapOr(undefined);
      partialFee = inclusion
        ? calc_partial_fee(
            inclusion.baseFee.toString(),
            inclusion.lenFee.toString(),
            inclusion.adjustedWeightFee.toString(),
            refTime(info.weight),
            String(completion.weight),
          )
        : '0';
      kind = 'postDispatch';
    } else if (support === 'unknown' && oneDimensional[i]) {
      context.feeDetails.learnWithout(context.specName, context.specVersion);
    }
    extrinsics[index].info = { weight: completion.weight, class: toSidecarJson(info.class), partialFee, kind };
  });
}

/** No fee details from this runtime (its answer says so); a node away, slow or throttling fails the request instead of being learned from. */
function undefinedUnlessNodeAway(error: unknown): undefined {
  if (error instanceof NodeUnavailableError || error instanceof NodeTimeoutError) throw error;
  return undefined;
}

function isTwoDimensional(weight: JsonValue): boolean {
  return typeof weight === 'object' && weight !== null && 'refTime' in weight;
}

/** The estimate's weight: one number, or the time part of two. */
function refTime(weight: Codec): string {
  const twoDimensional = (weight as unknown as { refTime?: { unwrap(): Codec } }).refTime;
  return twoDimensional ? twoDimensional.unwrap().toString() : weight.toString();
}

/** The runtime call's argument: the extrinsic and its length. */
function callData(context: EstimateContext, bytes: Uint8Array): Hex {
  return u8aToHex(u8aConcat(bytes, context.registry.createType('u32', bytes.length).toU8a()));
}

/**
 * Asks the runtime at the parent about one extrinsic: through its API where it
 * declares one, else through the node's payment RPC (JSON), as sidecar means to
 * (its v18 answers 500 there by a bug).
 */
async function askRuntime<T>(context: EstimateContext, bytes: Uint8Array, call: string, rpc: string, type: 'RuntimeDispatchInfo' | 'FeeDetails'): Promise<T> {
  const answer = context.hasTransactionPaymentApi
    ? hexToU8a(await context.node.call(call, callData(context, bytes), context.parentHash))
    : await context.node.send<Record<string, unknown>>(rpc, [u8aToHex(bytes), context.parentHash]);
  return context.registry.createType(type, answer) as unknown as T;
}

/** What a fee estimate needs to know of the runtime and where it asks it. */
export type EstimateContext = Pick<FeeContext, 'node' | 'registry' | 'parentHash' | 'hasTransactionPaymentApi'>;

/** The pre-dispatch estimate (the runtime's RuntimeDispatchInfo) of `bytes`, asked at `context.parentHash`. */
export const queryInfo = (context: EstimateContext, bytes: Uint8Array) =>
  askRuntime<RuntimeDispatchInfo>(context, bytes, 'TransactionPaymentApi_query_info', 'payment_queryInfo', 'RuntimeDispatchInfo');

/** What the fee is made of, to scale it to the weight actually used. */
const queryFeeDetails = (context: FeeContext, bytes: Uint8Array) =>
  askRuntime<FeeDetails>(context, bytes, 'TransactionPaymentApi_query_fee_details', 'payment_queryFeeDetails', 'FeeDetails');
