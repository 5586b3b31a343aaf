// The vesting arithmetic and the block clock sidecar 20 uses for includeClaimable: which
// chain's height counts on each side of the 2025 migration (heights of the windows
// sidecar knows), and what has vested and can be claimed.
import { vestedAt, vestingClock, vestingTotals } from '../../src/services/accounts/vestingSchedule';

const schedule = { locked: 1000n, perBlock: 10n, startingBlock: 100n };

describe('vestingClock', () => {
  it('runs an Asset Hub on nothing before its migration, on zero inside it, on the relay chain after it', () => {
    expect(vestingClock('statemint', 10254469)).toBe('none');
    expect(vestingClock('statemint', 10254470)).toBe('zero');
    expect(vestingClock('statemint', 10259207)).toBe('zero');
    expect(vestingClock('statemint', 10259208)).toBe('relay');
    expect(vestingClock('westmint', 210)).toBe('none');
    // An Asset Hub sidecar knows no window for: the schedules as stored.
    expect(vestingClock('yet-another-parachain', 5)).toBe('none');
  });

  it('runs a relay chain on its own heights before its migration, and on zero from its start', () => {
    expect(vestingClock('polkadot', 28490501)).toBe('self');
    expect(vestingClock('polkadot', 28490502)).toBe('zero');
    expect(vestingClock('polkadot', 30000000)).toBe('zero');
    expect(vestingClock('westend', 12)).toBe('self');
    // Any other chain: its own heights.
    expect(vestingClock('rococo', 99999999)).toBe('self');
  });
});

describe('vesting arithmetic', () => {
  it('releases nothing up to the starting block, then perBlock a block, never more than was locked', () => {
    expect([99n, 100n, 101n, 150n, 200n, 5000n].map((block) => vestedAt(block, schedule))).toEqual([0n, 0n, 10n, 500n, 1000n, 1000n]);
  });

  it('sums the schedules and counts as claimable what the lock holds beyond what they keep', () => {
    const second = { locked: 300n, perBlock: 100n, startingBlock: 149n };
    // At 150: 500 and 100 released of 1300; an untouched lock (1300) gives 600, a lock lowered by a claim of 400 gives 200.
    expect(vestingTotals([schedule, second], 1300n, 150n)).toEqual({ vested: [500n, 100n], vestedBalance: 600n, vestingTotal: 1300n, vestedClaimable: 600n });
    expect(vestingTotals([schedule, second], 900n, 150n).vestedClaimable).toBe(200n);
    // A lock below what the schedules keep: nothing, never a negative amount.
    expect(vestingTotals([schedule, second], 100n, 150n).vestedClaimable).toBe(0n);
  });

  it('counts nothing vested or claimable on the zero clock, the totals still given', () => {
    expect(vestingTotals([schedule], 1000n, null)).toEqual({ vested: [0n], vestedBalance: 0n, vestingTotal: 1000n, vestedClaimable: 0n });
  });
});
