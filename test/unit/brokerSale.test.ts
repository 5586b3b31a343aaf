// The two figures /coretime/info derives on a coretime chain: a core's price along the
// sale's lead-in (pallet-broker's CenterTargetPrice curve: 100x the end price at the start,
// 10x half way, 1x at the end) and the sale's phases in timeslices.
import { corePriceAt, salePhases } from '../../src/services/coretime/brokerJson';

const END_PRICE = 1_000_000_000_000n;

describe('corePriceAt', () => {
  const price = (now: number, start = 1_000, leadin = 500) => corePriceAt(BigInt(now), BigInt(start), BigInt(leadin), END_PRICE);

  test('100x the end price until the sale starts and at its start', () => {
    expect(price(0)).toBe(100n * END_PRICE);
    expect(price(999)).toBe(100n * END_PRICE);
    expect(price(1_000)).toBe(100n * END_PRICE);
  });

  test('10x half way through the lead-in, falling on both sides', () => {
    expect(price(1_250)).toBe(10n * END_PRICE);
    expect(price(1_100)).toBeLessThan(price(1_050));
    expect(price(1_100)).toBeGreaterThan(price(1_250));
    expect(price(1_400)).toBeLessThan(price(1_250));
  });

  test('the end price once the lead-in has passed, however long after', () => {
    expect(price(1_500)).toBe(END_PRICE);
    expect(price(90_000)).toBe(END_PRICE);
  });

  test('a sale without a lead-in sells at the end price', () => {
    expect(price(1_000, 1_000, 0)).toBe(END_PRICE);
  });

  test('never below the end price nor above 100x along the way', () => {
    for (let now = 900; now <= 1_600; now += 7) {
      expect(price(now)).toBeGreaterThanOrEqual(END_PRICE);
      expect(price(now)).toBeLessThanOrEqual(100n * END_PRICE);
    }
  });
});

describe('salePhases', () => {
  // Polkadot's coretime chain: 5,040-timeslice regions, 80 relay blocks a timeslice, a
  // 50,400-block interlude (630 timeslices) and a 100,800-block lead-in (1,260 timeslices).
  const at = (lastCommittedTimeslice: number) =>
    salePhases({
      currentRegionStart: 332_925n,
      regionLength: 5_040n,
      interludeLength: 50_400n,
      leadinLength: 100_800n,
      lastCommittedTimeslice: BigInt(lastCommittedTimeslice),
      relayBlocksPerTimeslice: 80n,
    });

  test('each phase ends where the one before it ends plus its own length, in timeslices', () => {
    expect(at(332_925).config).toEqual([
      { phaseName: 'renewals', lastTimeslice: 333_555n, lastRelayBlock: 333_555n * 80n },
      { phaseName: 'priceDiscovery', lastTimeslice: 334_815n, lastRelayBlock: 334_815n * 80n },
      { phaseName: 'fixedPrice', lastTimeslice: 337_965n, lastRelayBlock: 337_965n * 80n },
    ]);
  });

  test('the phase of the last committed timeslice, renewals included', () => {
    expect(at(332_925).currentPhase).toBe('renewals');
    expect(at(333_554).currentPhase).toBe('renewals');
    expect(at(333_555).currentPhase).toBe('priceDiscovery');
    expect(at(334_814).currentPhase).toBe('priceDiscovery');
    expect(at(334_815).currentPhase).toBe('fixedPrice');
    expect(at(337_964).currentPhase).toBe('fixedPrice');
  });
});
