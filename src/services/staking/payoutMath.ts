// A staker's share of an era's reward, with the arithmetic sidecar's payout calculator
// (@substrate/calc, built on sp-arithmetic 5) does it: Perbill fractions from a ratio
// whose terms are first scaled down to fit the fraction's accuracy, and Perbill products
// rounded to the nearest, ties down. Written out so the amounts match to the unit.

const ACCURACY = 1_000_000_000n;

/** p / q as Perbill parts, as sp-arithmetic 5's from_rational makes them (q at least 1, p at most q). */
export function perbillOf(p: bigint, q: bigint): bigint {
  const whole = q < 1n ? 1n : q;
  const part = p > whole ? whole : p;
  // Both terms shrunk by the same factor until the denominator fits the accuracy.
  let factor = whole / ACCURACY + (whole % ACCURACY > 0n ? 1n : 0n);
  if (factor < 1n) factor = 1n;
  return ((part / factor) * ACCURACY) / (whole / factor);
}

/** parts/1e9 of x, rounded to the nearest (a tie rounds down), without overflow as sp-arithmetic computes it. */
export function perbillTimes(parts: bigint, x: bigint): bigint {
  const remainder = x % ACCURACY;
  const scaled = remainder * parts;
  let correction = scaled / ACCURACY;
  if (scaled % ACCURACY > ACCURACY / 2n) correction += 1n;
  return (x / ACCURACY) * parts + correction;
}

export interface PayoutTerms {
  eraPoints: bigint;
  eraPayout: bigint;
  validatorPoints: bigint;
  /** Perbill parts. */
  commission: bigint;
  stakerExposure: bigint;
  totalExposure: bigint;
  /** The staker is the validator itself: its commission is its own too. */
  isValidator: boolean;
}

export function stakerPayout(terms: PayoutTerms): bigint {
  const validatorPayout = perbillTimes(perbillOf(terms.validatorPoints, terms.eraPoints), terms.eraPayout);
  const commissionPayout = perbillTimes(terms.commission, validatorPayout);
  const leftover = validatorPayout > commissionPayout ? validatorPayout - commissionPayout : 0n;
  const share = perbillTimes(perbillOf(terms.stakerExposure, terms.totalExposure), leftover);
  return terms.isValidator ? share + commissionPayout : share;
}
