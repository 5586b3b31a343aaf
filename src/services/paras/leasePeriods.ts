// The arithmetic of parachain slots and auctions, as the runtime's slots and auctions
// pallets define it and sidecar reports it: which lease period a height is in, which
// phase an auction is in, which sample of its ending period is taken, and the lease
// sets (slot ranges) its winning bids are for, in the order the runtime stores them.
import type { Codec } from '@polkadot/types/types';

import { toSidecarJson, type JsonValue } from '../../decode/codecJson';

export interface SlotsConstants {
  leasePeriod: bigint;
  leaseOffset: bigint;
}

export interface AuctionsConstants {
  endingPeriod: bigint;
  sampleLength: bigint;
  leasePeriodsPerSlot: number;
}

export type AuctionPhase = 'startPeriod' | 'endPeriod' | 'vrfDelay';

export interface CurrentAuction {
  beginEnd: bigint;
  finishEnd: bigint;
  phase: AuctionPhase;
  /** The sample of the ending period whose winning bids stand (null: none to read). */
  endingOffset: bigint | null;
  leasePeriods: bigint[];
  leaseSets: bigint[][];
}

/** The lease period `now` falls in; null before the first one starts (a height below the offset). */
export function leasePeriodIndexAt({ leasePeriod, leaseOffset }: SlotsConstants, now: bigint): bigint | null {
  if (now < leaseOffset || leasePeriod === 0n) return null;
  return (now - leaseOffset) / leasePeriod;
}

/** Every slot range of an auction, in the order of its winning bids: by first period, then by length. */
export function leaseSets(firstPeriod: bigint, periodsPerSlot: number): bigint[][] {
  const sets: bigint[][] = [];
  for (let start = 0; start < periodsPerSlot; start++) {
    for (let end = start; end < periodsPerSlot; end++) {
      sets.push(Array.from({ length: end - start + 1 }, (_, i) => firstPeriod + BigInt(start + i)));
    }
  }
  return sets;
}

/** The auction `info` (the runtime's AuctionInfo) describes, seen at height `now`; null when none runs. */
export function currentAuction(
  info: { leasePeriodIndex: bigint; beginEnd: bigint } | null,
  now: bigint,
  { endingPeriod, sampleLength, leasePeriodsPerSlot }: AuctionsConstants,
): CurrentAuction | null {
  if (!info) return null;
  const { leasePeriodIndex, beginEnd } = info;
  const finishEnd = beginEnd + endingPeriod;
  const phase: AuctionPhase = finishEnd <= now ? 'vrfDelay' : beginEnd > now ? 'startPeriod' : 'endPeriod';
  // Samples are counted from the block after the ending period begins; before it, or once it is over, there is none to read.
  const sinceEnding = now - beginEnd;
  const endingOffset = sinceEnding > 0n && phase === 'endPeriod' && sampleLength > 0n ? sinceEnding / sampleLength : null;
  return {
    beginEnd,
    finishEnd,
    phase,
    endingOffset,
    leasePeriods: Array.from({ length: leasePeriodsPerSlot }, (_, i) => leasePeriodIndex + BigInt(i)),
    leaseSets: leaseSets(leasePeriodIndex, leasePeriodsPerSlot),
  };
}

type Bid = Codec & { isSome: boolean; unwrap(): Codec & [Codec, Codec, Codec] };

/** The stored winning bids beside the lease set each is for: `{ bid: { accountId, paraId, amount } | null, leaseSet }`. */
export function auctionWinning(bids: Codec[], sets: bigint[][]): JsonValue {
  return bids.map((stored, i) => {
    const bid = stored as Bid;
    const leaseSet = sets[i]?.map(String);
    if (!bid.isSome) return toSidecarJson({ bid: null, leaseSet });
    const [accountId, paraId, amount] = bid.unwrap();
    return toSidecarJson({ bid: { accountId, paraId, amount }, leaseSet });
  });
}
