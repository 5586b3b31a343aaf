// Which fee answer sidecar gives on which runtime, as facts per chain (its
// chains-config, v18): below `minCalcFeeRuntime` it reports that fees cannot be
// calculated; for extrinsics whose fee no event reported, runtimes up to
// `withoutDetailsUpTo` get the pre-dispatch estimate, and from `withDetailsFrom`
// on the post-dispatch fee from the runtime's fee details. Between the two (and
// on chains with neither) the fee details are tried, and a runtime whose answer
// cannot be used is remembered as having none.

export interface FeeRules {
  /** null: fee calculation is not supported on this chain at all. */
  minCalcFeeRuntime: number | null;
  withoutDetailsUpTo: number | null;
  withDetailsFrom: number | null;
}

const rules = (minCalcFeeRuntime: number | null, withoutDetailsUpTo: number | null = null, withDetailsFrom: number | null = null): FeeRules => ({
  minCalcFeeRuntime,
  withoutDetailsUpTo,
  withDetailsFrom,
});

const BY_SPEC_NAME = new Map<string, FeeRules>([
  ['polkadot', rules(0, 27, 28)],
  ['kusama', rules(1058, 2027, 2028)],
  ['westend', rules(6)],
  ['polymesh', rules(0)],
  ['kulupu', rules(null)],
  ['kilt', rules(null)],
  ['mandala', rules(null)],
  ['sora', rules(null)],
  ['dock-main-runtime', rules(1)],
  ['dock-pos-main-runtime', rules(29)],
  ['dock-pos-test-runtime', rules(26)],
  ['asset-hub-kusama', rules(1)],
  ['statemine', rules(1)],
  ['westmine', rules(1)],
  ['asset-hub-polkadot', rules(601)],
  ['statemint', rules(601)],
  ['asset-hub-westend', rules(601)],
  ['westmint', rules(601)],
  ['shiden', rules(1)],
  ['astar', rules(1)],
  ['calamari', rules(1)],
  ['karura', rules(1000)],
  ['acala', rules(2000)],
  ['manta', rules(1)],
  ['crust', rules(1)],
  ['bifrost', rules(1)],
  ['bifrost_polkadot', rules(1)],
  ['heiko', rules(1)],
  ['parallel', rules(1)],
]);

/**
 * Sidecar refuses to calculate fees on chains it has no configuration for; fastcar
 * calculates them (a deliberate difference, in the README): the runtime answers
 * the same queries on any chain.
 */
const UNKNOWN_CHAIN = rules(0);

export function feeRulesFor(specName: string): FeeRules {
  return BY_SPEC_NAME.get(specName) ?? UNKNOWN_CHAIN;
}

export type FeeDetailsSupport = 'available' | 'notAvailable' | 'unknown';

/** What is known about fee details per runtime; learns from runtimes whose answer was unusable. */
export class FeeDetailsKnowledge {
  private readonly learnedWithout = new Map<string, number>();

  support(specName: string, specVersion: number): FeeDetailsSupport {
    const { withoutDetailsUpTo, withDetailsFrom } = feeRulesFor(specName);
    if (withDetailsFrom !== null && specVersion >= withDetailsFrom) return 'available';
    const without = Math.max(withoutDetailsUpTo ?? -1, this.learnedWithout.get(specName) ?? -1);
    if (without >= 0 && specVersion <= without) return 'notAvailable';
    return 'unknown';
  }

  learnWithout(specName: string, specVersion: number): void {
    this.learnedWithout.set(specName, Math.max(specVersion, this.learnedWithout.get(specName) ?? -1));
  }
}
