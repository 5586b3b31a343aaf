// The node's transaction pool as sidecar's /node/transaction-pool lists it: each pending
// extrinsic's hash and bytes and, with fees, its tip, its fee estimate and the priority
// the pool gives it (transaction-payment's formula, below). One wave for the list and
// the best block's hash; with fees, one more for every estimate and the best block's
// runtime version (a third only for operational extrinsics, whose priority needs their
// fee details). Everything is asked at that one best block, so the estimates and the
// constants they are scaled by come from the same runtime.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import type { DispatchClass, FeeDetails, RuntimeDispatchInfo } from '@polkadot/types/interfaces';
import { hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import { blake2AsHex } from '@polkadot/util-crypto';

import type { Hex, NodeClient, RpcRuntimeVersion } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import type { RuntimeRegistry } from '../runtimes';
import { bigintOf } from '../../decode/codecValues';

/**
 * The most pool entries one request gets fees for: each is a runtime call on the node.
 * Entries past it (in the node's order) are listed without `tip`, `priority` and `partialFee`.
 */
export const MAX_POOL_FEES_PER_REQUEST = 256;

interface PoolEntry {
  hash: Hex;
  encodedExtrinsic: Hex;
  tip?: string;
  priority?: string;
  partialFee?: string;
}

/** What the runtime's constants bound a block by, for the priority formula. */
export interface BlockLimits {
  maxBlockRefTime: bigint;
  /** The block's proof size bound, where weights have two parts. */
  maxBlockProofSize?: bigint;
  maxLength: Record<'normal' | 'operational' | 'mandatory', bigint>;
  operationalFeeMultiplier: bigint;
}

/** A call's argument: the extrinsic and its length as a little-endian u32. */
function withLength(bytes: Uint8Array): Hex {
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, bytes.length, true);
  return u8aToHex(u8aConcat(bytes, length));
}

/** A weight: its time, and its proof size where it has two parts. */
export interface WeightParts {
  refTime: bigint;
  proofSize?: bigint;
}

function weightOf(weight: Codec): WeightParts {
  const parts = weight as unknown as { refTime?: { unwrap(): Codec }; proofSize?: { unwrap(): Codec } };
  if (!parts.refTime || !parts.proofSize) return { refTime: bigintOf(weight) };
  return { refTime: bigintOf(parts.refTime.unwrap()), proofSize: bigintOf(parts.proofSize.unwrap()) };
}

function constantOf(registry: TypeRegistry, pallet: string, name: string): Codec | undefined {
  const found = registry.metadata.pallets.find((p) => p.name.toString() === pallet)?.constants.find((c) => c.name.toString() === name);
  return found ? registry.createTypeUnsafe(registry.createLookupType(found.type), [found.value.toU8a(true)]) : undefined;
}

function blockLimitsOf(registry: TypeRegistry): BlockLimits {
  const weights = constantOf(registry, 'System', 'BlockWeights') as unknown as { maxBlock: Codec };
  const maxBlock = weightOf(weights.maxBlock);
  const length = constantOf(registry, 'System', 'BlockLength') as unknown as { max: Record<'normal' | 'operational' | 'mandatory', Codec> };
  const multiplier = constantOf(registry, 'TransactionPayment', 'OperationalFeeMultiplier');
  return {
    maxBlockRefTime: maxBlock.refTime,
    maxBlockProofSize: maxBlock.proofSize,
    maxLength: { normal: bigintOf(length.max.normal), operational: bigintOf(length.max.operational), mandatory: bigintOf(length.max.mandatory) },
    operationalFeeMultiplier: multiplier ? bigintOf(multiplier) : 0n,
  };
}

const clamp = (value: bigint, low: bigint, high: bigint) => (value < low ? low : value > high ? high : value);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * How many such extrinsics would fill a block, by each part of its weight or by its
 * length, whichever is fewest: the pool scales a tip by it (transaction-payment's
 * `get_priority`, which divides weights part by part).
 */
function maxPerBlock(limits: BlockLimits, className: keyof BlockLimits['maxLength'], weight: WeightParts, length: number): bigint {
  const maxLength = limits.maxLength[className];
  let fewest = min(limits.maxBlockRefTime / clamp(weight.refTime, 1n, limits.maxBlockRefTime), maxLength / clamp(BigInt(length), 1n, maxLength));
  const maxProof = limits.maxBlockProofSize;
  if (maxProof !== undefined && weight.proofSize !== undefined) fewest = min(fewest, maxProof / clamp(weight.proofSize, 1n, maxProof));
  return fewest;
}

const classOf = (dispatchClass: DispatchClass) => dispatchClass.type.toLowerCase() as keyof BlockLimits['maxLength'];

/** What one pool entry's priority is computed from. */
export interface PriorityInputs {
  className: keyof BlockLimits['maxLength'];
  /** Its estimated weight. */
  weight: WeightParts;
  /** Its length as the pool holds it (length prefix included). */
  length: number;
  tip: bigint;
  /** Operational only: its inclusion fee's parts, none for an unsigned extrinsic. */
  inclusionFee?: { baseFee: bigint; lenFee: bigint; adjustedWeightFee: bigint };
}

/**
 * The priority transaction-payment gives an extrinsic (`get_priority`): its tip plus one,
 * scaled by how many such extrinsics fit a block; an operational one also gets a virtual
 * tip, its whole fee times the runtime's multiplier, scaled the same way (and none at all
 * when it pays no fee).
 */
export function poolPriority(limits: BlockLimits, inputs: PriorityInputs): bigint {
  const perBlock = maxPerBlock(limits, inputs.className, inputs.weight, inputs.length);
  const scaledTip = (inputs.tip + 1n) * perBlock;
  if (inputs.className !== 'operational') return scaledTip;
  const fee = inputs.inclusionFee;
  if (!fee) return 0n;
  return scaledTip + (fee.baseFee + fee.lenFee + fee.adjustedWeightFee + inputs.tip) * limits.operationalFeeMultiplier * perBlock;
}

export class TransactionPool {
  constructor(
    private readonly node: NodeClient,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  async list(includeFee: boolean): Promise<string> {
    const [pending, bestHash] = await wave([
      this.node.send<Hex[]>('author_pendingExtrinsics', []),
      includeFee ? this.node.send<Hex>('chain_getBlockHash', []) : undefined,
    ] as const);
    const entries: PoolEntry[] = pending.map((hex) => ({ hash: blake2AsHex(hexToU8a(hex), 256), encodedExtrinsic: hex }));
    if (bestHash && entries.length > 0) await this.addFees(entries.slice(0, MAX_POOL_FEES_PER_REQUEST), bestHash);
    return JSON.stringify({ pool: entries });
  }

  private async addFees(entries: PoolEntry[], at: Hex): Promise<void> {
    const bytes = entries.map((entry) => hexToU8a(entry.encodedExtrinsic));
    const [version, answers] = await wave([
      this.node.send<RpcRuntimeVersion>('state_getRuntimeVersion', [at]),
      Promise.all(bytes.map((b) => this.node.call('TransactionPaymentApi_query_info', withLength(b), at))),
    ] as const);
    const { registry } = await this.runtimes.get(version, at);
    const limits = blockLimitsOf(registry);
    const infos = answers.map((answer) => registry.createType('RuntimeDispatchInfo', hexToU8a(answer)) as unknown as RuntimeDispatchInfo);
    const tips = bytes.map((b) => BigInt(registry.createType('Extrinsic', b).tip.toString()));
    const operational = infos.flatMap((info, i) => (classOf(info.class) === 'operational' ? [i] : []));
    const details = await wave(operational.map((i) => this.node.call('TransactionPaymentApi_query_fee_details', withLength(bytes[i]), at)));
    const detailsOf = new Map(operational.map((i, n) => [i, registry.createType('FeeDetails', hexToU8a(details[n])) as unknown as FeeDetails]));
    entries.forEach((entry, i) => {
      const className = classOf(infos[i].class);
      const inclusion = detailsOf.get(i)?.inclusionFee.unwrapOr(undefined);
      const priority = poolPriority(limits, {
        className,
        weight: weightOf(infos[i].weight),
        length: bytes[i].length,
        tip: tips[i],
        inclusionFee: inclusion && {
          baseFee: bigintOf(inclusion.baseFee),
          lenFee: bigintOf(inclusion.lenFee),
          adjustedWeightFee: bigintOf(inclusion.adjustedWeightFee),
        },
      });
      Object.assign(entry, { tip: tips[i].toString(), priority: priority.toString(), partialFee: infos[i].partialFee.toString() });
    });
  }
}
