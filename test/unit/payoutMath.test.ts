// The payout arithmetic against figures made by sidecar 20's own calculator
// (@substrate/calc 0.3.1, CalcPayout.from_params(...).calc_payout(...)): large amounts
// where sp-arithmetic 5 scales a ratio's terms down first, a validator's commission
// added to its own share, more points than the era's (a whole share), no points.
import { perbillOf, perbillTimes, stakerPayout } from '../../src/services/staking/payoutMath';

type Vector = [number, string, number, number, string, string, boolean, string];

const FROM_SIDECAR: Vector[] = [
  [100, '1000000000000', 50, 0, '100', '1000', false, '50000000000'],
  [73, '1039000987654321', 29, 103000000, '456000000000009', '6690000000000034', false, '25236101112989'],
  [73, '1039000987654321', 29, 103000000, '5000000000000003', '6690000000000034', true, '319225281858969'],
  [61, '562330127210464639422', 9980, 746355660, '4762954584374874', '169502051017966720', false, '4007910310391293860'],
  [83678, '562330127210464639422', 9980, 746355660, '4762954584374874', '169502051017966720', false, '478010284711269052'],
  [59271, '32381469794364401814', 1598, 538396055, '6056148860070442', '59901121672501469', true, '510781828322984326'],
  [10, '999', 10, 1000000000, '5', '10', true, '999'],
  [10, '999', 0, 0, '5', '10', false, '0'],
  [1, '7', 2, 0, '11', '10', false, '7'],
];

describe('staking payout arithmetic', () => {
  it.each(FROM_SIDECAR)(
    'era points %d, payout %s, validator points %d, commission %d: as sidecar 20 works it out',
    (eraPoints, eraPayout, points, commission, stake, total, isValidator, expected) => {
      const payout = stakerPayout({
        eraPoints: BigInt(eraPoints),
        eraPayout: BigInt(eraPayout),
        validatorPoints: BigInt(points),
        commission: BigInt(commission),
        stakerExposure: BigInt(stake),
        totalExposure: BigInt(total),
        isValidator,
      });
      expect(String(payout)).toBe(expected);
    },
  );

  it('rounds a Perbill product to the nearest, a tie down, and caps a ratio at one', () => {
    // Half of 3 is 1.5, a tie: down. A hair over half: up.
    expect(perbillTimes(500_000_000n, 3n)).toBe(1n);
    expect(perbillTimes(500_000_001n, 3n)).toBe(2n);
    expect(perbillOf(3n, 2n)).toBe(1_000_000_000n);
    expect(perbillOf(1n, 0n)).toBe(1_000_000_000n);
    // Terms over the accuracy are scaled down before dividing: not the exact ratio's floor.
    expect(perbillOf(4_762_954_584_374_874n, 169_502_051_017_966_720n)).not.toBe((4_762_954_584_374_874n * 1_000_000_000n) / 169_502_051_017_966_720n);
  });
});
