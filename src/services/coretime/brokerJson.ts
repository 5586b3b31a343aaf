// The Broker pallet's records as sidecar's /coretime routes lay them out on a coretime
// chain, and the two figures it derives: the sale's phases and a core's price now.
// Pure functions of decoded values; brokerReads.ts fetches them.
import type { Codec } from '@polkadot/types/types';
import { bigintOf, type Optional, type Struct } from '../../decode/codecValues';

type Assignment = Codec & { isPool: boolean; isTask: boolean; asTask: Codec };

export const optional = (value: Codec | undefined | null): Codec | null => {
  const option = value as Optional | undefined | null;
  if (!option) return null;
  if (typeof option.isSome !== 'boolean') return option;
  return option.isSome ? option.unwrap() : null;
};

export const fieldOf = (record: Codec | null, name: string): Codec | undefined => (record as Struct | null)?.get(name);
/** A schedule's items (none for nothing stored). */
export const itemsOf = (schedule: Codec | null): Struct[] => (schedule ? [...(schedule as unknown as Struct[])] : []);

/** The task an assignment names: a para id, the instantaneous pool, or an idle core. */
function taskOf(assignment: Assignment | undefined, other: string): string {
  if (assignment?.isTask) return assignment.asTask.toString();
  return assignment?.isPool ? 'Pool' : other;
}

/** A schedule item (a core mask and who works in it) as a workload lists it. */
export function workloadItem(item: Struct) {
  const assignment = fieldOf(item, 'assignment') as Assignment | undefined;
  return {
    isPool: assignment?.isPool ?? false,
    isTask: assignment?.isTask ?? false,
    mask: fieldOf(item, 'mask')?.toHex() ?? null,
    task: taskOf(assignment, 'Idle'),
  };
}

/** The same item as a workplan lists it (the mask first, as sidecar orders it). */
export function workplanItem(item: Struct) {
  const { mask, ...rest } = workloadItem(item);
  return { mask, ...rest };
}

/** A reservation: its first item's mask and task ('' for an idle one, as sidecar writes it). */
export function reservationJson(schedule: Struct[]) {
  const first = schedule[0];
  const assignment = first ? (fieldOf(first, 'assignment') as Assignment | undefined) : undefined;
  return { mask: first ? fieldOf(first, 'mask')?.toHex() : undefined, task: taskOf(assignment, '') };
}

/** A lease: the task and the timeslice it ends at; its core is the workload core working for that task. */
export function leaseJson(lease: Struct, core: number | undefined) {
  return { task: fieldOf(lease, 'task')?.toString() ?? '', until: bigintOf(fieldOf(lease, 'until')), core };
}

/** A region: where it sits (from its key) and who holds it. */
export function regionJson(id: Struct, record: Struct | null) {
  const owner = optional(record ? fieldOf(record, 'owner') : null);
  const paid = optional(record ? fieldOf(record, 'paid') : null);
  return {
    core: Number(bigintOf(fieldOf(id, 'core'))),
    begin: bigintOf(fieldOf(id, 'begin')),
    end: record ? bigintOf(fieldOf(record, 'end')) : undefined,
    owner: owner ?? undefined,
    paid: paid ?? undefined,
    mask: fieldOf(id, 'mask')?.toHex(),
  };
}

/** A potential renewal: complete (a whole schedule, its first item's task) or partial (only a mask so far). */
export function renewalJson(id: Struct, record: Struct | null) {
  const completion = record
    ? (fieldOf(record, 'completion') as (Codec & { type: string; isComplete: boolean; isPartial: boolean; value: Codec }) | undefined)
    : undefined;
  let mask: string | null = null;
  let task = '';
  if (completion?.isComplete) {
    const first = [...(completion.value as unknown as Struct[])][0];
    if (first) ({ mask, task } = workloadItem(first));
  } else if (completion?.isPartial) {
    mask = completion.value.toHex();
  }
  return {
    completion: completion?.type,
    core: Number(bigintOf(fieldOf(id, 'core'))),
    mask,
    price: record ? bigintOf(fieldOf(record, 'price')) : undefined,
    task,
    when: bigintOf(fieldOf(id, 'when')),
  };
}

export const byCore = <T extends { core?: number }>(entries: T[]): T[] => entries.sort((a, b) => (a.core ?? 0) - (b.core ?? 0));

/** Sidecar's price curve, scaled by 10,000: 100x the end price at the sale's start, falling to 10x at half the lead-in, 1x at its end. */
const SCALE = 10_000n;
function leadinFactor(scaledProgress: bigint): bigint {
  return scaledProgress <= SCALE / 2n ? SCALE * 100n - scaledProgress * 180n : SCALE * 19n - scaledProgress * 18n;
}

/**
 * A core's price at relay block `relayNow` in the sale that starts at relay block `saleStart`:
 * the end price times the lead-in factor (100x before and at the start, the end price once
 * the lead-in has passed).
 */
export function corePriceAt(relayNow: bigint, saleStart: bigint, leadinLength: bigint, endPrice: bigint): bigint {
  const elapsed = relayNow > saleStart ? relayNow - saleStart : 0n;
  const progress = leadinLength === 0n ? SCALE : ((elapsed < leadinLength ? elapsed : leadinLength) * SCALE) / leadinLength;
  return (leadinFactor(progress) * endPrice) / SCALE;
}

export interface PhaseInput {
  /** The timeslice the region in use began at (the one on sale begins when it ends). */
  currentRegionStart: bigint;
  regionLength: bigint;
  /** Relay blocks: the configured interlude and the sale's lead-in. */
  interludeLength: bigint;
  leadinLength: bigint;
  lastCommittedTimeslice: bigint;
  relayBlocksPerTimeslice: bigint;
}

/**
 * The sale's three phases (renewals in the interlude, price discovery in the lead-in, then a
 * fixed price until the region on sale begins) with the timeslice and relay block each ends
 * at, and the phase the last committed timeslice is in. Sidecar adds the relay-block lengths
 * to timeslices as they are and never reports `renewals`; here they are timeslices.
 */
export function salePhases(input: PhaseInput) {
  const perTimeslice = input.relayBlocksPerTimeslice > 0n ? input.relayBlocksPerTimeslice : 1n;
  const interlude = input.interludeLength / perTimeslice;
  const leadin = input.leadinLength / perTimeslice;
  const renewalsEnd = input.currentRegionStart + interlude;
  const priceDiscoveryEnd = renewalsEnd + leadin;
  const fixedPriceEnd = input.currentRegionStart + input.regionLength;
  const progress = input.lastCommittedTimeslice - input.currentRegionStart;
  const currentPhase = progress < interlude ? 'renewals' : progress < interlude + leadin ? 'priceDiscovery' : 'fixedPrice';
  const end = (phaseName: string, lastTimeslice: bigint) => ({ phaseName, lastRelayBlock: lastTimeslice * perTimeslice, lastTimeslice });
  return {
    currentPhase,
    config: [end('renewals', renewalsEnd), end('priceDiscovery', priceDiscoveryEnd), end('fixedPrice', fixedPriceEnd)],
  };
}
