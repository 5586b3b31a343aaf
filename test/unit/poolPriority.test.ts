// The pool priority /node/transaction-pool reports, against transaction-payment's
// formula worked by hand: the tip plus one scaled by how many such extrinsics fill a
// block (by weight or by length, whichever is fewer), and for operational extrinsics a
// virtual tip from their fee. The devnet test compares the normal case with sidecar and
// the runtime's own validation; operational extrinsics cannot be pooled there.
import { poolPriority, type BlockLimits } from '../../src/services/node/transactionPool';

const limits: BlockLimits = {
  maxBlockRefTime: 2_000_000_000_000n,
  maxLength: { normal: 3_932_160n, operational: 5_242_880n, mandatory: 5_242_880n },
  operationalFeeMultiplier: 5n,
};

/** The same block bounded in proof size too, as a runtime of two-part weights is. */
const twoPart: BlockLimits = { ...limits, maxBlockProofSize: 5_242_880n };

describe('poolPriority', () => {
  it('scales the tip plus one by the extrinsics of that weight a block holds', () => {
    // 2e12 / 258,866,000 = 7726 by weight; 3,932,160 / 146 = 26,932 by length.
    expect(poolPriority(limits, { className: 'normal', weight: { refTime: 258_866_000n }, length: 146, tip: 0n })).toBe(7726n);
    expect(poolPriority(limits, { className: 'normal', weight: { refTime: 258_866_000n }, length: 146, tip: 1234n })).toBe(1235n * 7726n);
  });

  it('takes the length bound where it is the tighter one, and bounds weight and length below by one', () => {
    // 5,242,880 / 1,000,000 = 5 by length (a mandatory extrinsic's bound), against 2000 by weight.
    expect(poolPriority(limits, { className: 'mandatory', weight: { refTime: 1_000_000_000n }, length: 1_000_000, tip: 9n })).toBe(50n);
    // A zero weight counts as one: the whole block's weight per extrinsic, bounded by length.
    expect(poolPriority(limits, { className: 'normal', weight: { refTime: 0n }, length: 0, tip: 0n })).toBe(3_932_160n);
    // A weight above the block's counts as the block's: one per block.
    expect(poolPriority(limits, { className: 'normal', weight: { refTime: 10n ** 15n }, length: 10, tip: 4n })).toBe(5n);
  });

  it('divides two-part weights part by part: a proof-heavy extrinsic is bounded by its proof size', () => {
    // 2e12 / 258,866,000 = 7726 by time, but 5,242,880 / 6,700 = 782 by proof size.
    expect(poolPriority(twoPart, { className: 'normal', weight: { refTime: 258_866_000n, proofSize: 6_700n }, length: 146, tip: 1234n })).toBe(1235n * 782n);
    // A weight given as one number (older runtimes) has no proof part to bound it.
    expect(poolPriority(twoPart, { className: 'normal', weight: { refTime: 258_866_000n }, length: 146, tip: 0n })).toBe(7726n);
  });

  it("adds an operational extrinsic's virtual tip, its fee times the multiplier, scaled alike; none when it pays no fee", () => {
    const inclusionFee = { baseFee: 100n, lenFee: 50n, adjustedWeightFee: 850n };
    // 2000 per block by weight; (10 + 1) * 2000 + (1000 + 10) * 5 * 2000.
    const operational = { className: 'operational', weight: { refTime: 1_000_000_000n }, length: 100, tip: 10n } as const;
    expect(poolPriority(limits, { ...operational, inclusionFee })).toBe(22_000n + 10_100_000n);
    expect(poolPriority(limits, operational)).toBe(0n);
  });
});
