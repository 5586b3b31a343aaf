// Fee info per extrinsic, as sidecar reports it. Fees come from the
// TransactionFeePaid event when the runtime emitted one (no RPC at all);
// the rest are asked of the runtime at the parent block, all in one wave.
import type { TypeRegistry } from '@polkadot/types';
import { hexToU8a, u8aToHex, u8aConcat } from '@polkadot/util';
import type { Block } from '@polkadot/types/interfaces';

import type { Hex, NodeClient } from '../rpc/nodeClient';
import { wave } from '../rpc/requestStats';
import type { ExtrinsicFacts, SidecarExtrinsic } from './blockShape';
import { toSidecarJson } from './sanitize';

export interface FeeContext {
  node: NodeClient;
  registry: TypeRegistry;
  parentHash: Hex;
  hasTransactionPaymentApi: boolean;
  noFees: boolean;
}

/** Fills `info` of every extrinsic in place. Returns how many runtime fee queries it made. */
export async function resolveFees(block: Block, extrinsics: SidecarExtrinsic[], facts: ExtrinsicFacts[], context: FeeContext): Promise<number> {
  // With noFees every `info` stays `{}`, as sidecar leaves it.
  if (context.noFees) return 0;
  const pending: number[] = [];
  extrinsics.forEach((extrinsic, index) => {
    const fact = facts[index];
    if (!extrinsic.paysFee || !fact.isSigned) return;
    if (!fact.hasCompletionEvent) {
      extrinsic.info = { error: 'Unable to find success or failure event for extrinsic' };
    } else if (!fact.completion) {
      extrinsic.info = { error: 'Success or failure event for extrinsic does not specify weight' };
    } else if (!context.hasTransactionPaymentApi) {
      extrinsic.info = { error: 'Rpc method payment::queryInfo is not available' };
    } else if (fact.completion.feeFromEvent !== undefined) {
      extrinsic.info = {
        weight: toSidecarJson(fact.completion.weight),
        class: toSidecarJson(fact.completion.class),
        partialFee: fact.completion.feeFromEvent,
        kind: 'fromEvent',
      };
    } else {
      pending.push(index);
    }
  });
  if (pending.length === 0) return 0;

  const answers = await wave(
    pending.map((index) => {
      const bytes = block.extrinsics[index].toU8a();
      const length = context.registry.createType('u32', bytes.length).toU8a();
      return context.node.call('TransactionPaymentApi_query_info', u8aToHex(u8aConcat(bytes, length)), context.parentHash);
    }),
  );
  pending.forEach((index, i) => {
    const info = context.registry.createType('RuntimeDispatchInfo', hexToU8a(answers[i]));
    const completion = facts[index].completion;
    // Sidecar v18 then tries queryFeeDetails for a post-dispatch fee, but its
    // fee calculator cannot parse a two-dimensional weight, so on every
    // current runtime it keeps the pre-dispatch estimate. We report the same
    // value without the wasted call.
    extrinsics[index].info = {
      weight: toSidecarJson(completion?.weight),
      class: toSidecarJson(info.class),
      partialFee: info.partialFee.toString(10),
      kind: 'preDispatch',
    };
  });
  return pending.length;
}
