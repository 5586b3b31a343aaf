// The slots and auctions arithmetic /paras/leases/current and /paras/auctions/current
// report: lease periods, an auction's phases and its ending samples, and the order of
// the slot ranges its winning bids are stored in (the runtime's SlotRange order).
import { currentAuction, leasePeriodIndexAt, leaseSets } from '../../src/services/paras/leasePeriods';

const AUCTIONS = { endingPeriod: 100n, sampleLength: 20n, leasePeriodsPerSlot: 4 };

describe('leasePeriodIndexAt', () => {
  it('counts periods from the offset, and has none before it', () => {
    expect(leasePeriodIndexAt({ leasePeriod: 10n, leaseOffset: 0n }, 0n)).toBe(0n);
    expect(leasePeriodIndexAt({ leasePeriod: 10n, leaseOffset: 0n }, 29n)).toBe(2n);
    expect(leasePeriodIndexAt({ leasePeriod: 10n, leaseOffset: 5n }, 4n)).toBeNull();
    expect(leasePeriodIndexAt({ leasePeriod: 10n, leaseOffset: 5n }, 15n)).toBe(1n);
  });
});

describe('leaseSets', () => {
  it("lists every range by its first period, then by length, as the runtime's SlotRange does", () => {
    expect(leaseSets(0n, 3)).toEqual([[0n], [0n, 1n], [0n, 1n, 2n], [1n], [1n, 2n], [2n]]);
    // Polkadot and Westend: 8 periods per slot make 36 ranges (SlotRangeCount).
    expect(leaseSets(3n, 8)).toHaveLength(36);
    expect(leaseSets(3n, 8)[8]).toEqual([4n]);
  });
});

describe('currentAuction', () => {
  const info = { leasePeriodIndex: 7n, beginEnd: 50n };

  it('is null when no auction runs', () => {
    expect(currentAuction(null, 10n, AUCTIONS)).toBeNull();
  });

  it('opens, ends in samples, then waits for randomness', () => {
    const opening = currentAuction(info, 49n, AUCTIONS);
    expect(opening).toMatchObject({ phase: 'startPeriod', beginEnd: 50n, finishEnd: 150n, endingOffset: null, leasePeriods: [7n, 8n, 9n, 10n] });
    // The first block of the ending period has no sample yet (as sidecar reads it).
    expect(currentAuction(info, 50n, AUCTIONS)).toMatchObject({ phase: 'endPeriod', endingOffset: null });
    expect(currentAuction(info, 51n, AUCTIONS)).toMatchObject({ phase: 'endPeriod', endingOffset: 0n });
    expect(currentAuction(info, 95n, AUCTIONS)).toMatchObject({ phase: 'endPeriod', endingOffset: 2n });
    expect(currentAuction(info, 150n, AUCTIONS)).toMatchObject({ phase: 'vrfDelay', endingOffset: null });
  });
});
