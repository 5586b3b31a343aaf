// What has vested of an account's vesting schedules at a block number, and which
// block number counts, as sidecar 20 works them out for `includeClaimable=true`.
// Vesting moved from the relay chains to their Asset Hubs (the 2025 migration):
// before it, a relay chain's schedules run on its own block numbers; after it, an
// Asset Hub's run on the relay chain's, and a relay chain's are gone (nothing
// claimable there). Inside the migration window nothing is claimable on either.
import { ASSET_HUB_OF_RELAY, ASSET_HUBS, MIGRATIONS } from '../assetHubMigration';

export interface Schedule {
  locked: bigint;
  perBlock: bigint;
  startingBlock: bigint;
}

/**
 * How the vested amounts at a block are worked out:
 * `none`: not at all (the raw schedules are answered: an Asset Hub before the migration, or one sidecar has no window for);
 * `zero`: nothing vested or claimable (inside the window, or a relay chain after it), by the block's own number;
 * `self`: by the block's own number; `relay`: by the relay chain's block that included this one.
 */
export type VestingClock = 'none' | 'zero' | 'self' | 'relay';

const phase = (height: number, [start, end]: [number, number]) => (height < start ? 'before' : height >= end ? 'after' : 'during');

export function vestingClock(specName: string, height: number): VestingClock {
  if (ASSET_HUBS.has(specName)) {
    const window = MIGRATIONS[specName];
    if (!window) return 'none';
    const now = phase(height, window.assetHub);
    return now === 'before' ? 'none' : now === 'during' ? 'zero' : 'relay';
  }
  const assetHub = ASSET_HUB_OF_RELAY[specName];
  const window = assetHub === undefined ? undefined : MIGRATIONS[assetHub];
  if (!window) return 'self';
  return phase(height, window.relay) === 'before' ? 'self' : 'zero';
}

/** What a schedule has released by `block`: nothing until after its start, then `perBlock` a block, at most all of it. */
export function vestedAt(block: bigint, schedule: Schedule): bigint {
  if (block <= schedule.startingBlock) return 0n;
  const released = (block - schedule.startingBlock) * schedule.perBlock;
  // bigints: Math.min does not take them.
  if (released >= schedule.locked) return schedule.locked;
  return released;
}

export interface VestingTotals {
  vested: bigint[];
  vestedBalance: bigint;
  vestingTotal: bigint;
  vestedClaimable: bigint;
}

/**
 * The schedules at `block` (null: nothing has vested, as inside the migration window).
 * What can be claimed is what the vesting lock still holds beyond what the schedules
 * keep locked (claims already made lowered the lock), never below zero.
 */
export function vestingTotals(schedules: Schedule[], vestingLock: bigint, block: bigint | null): VestingTotals {
  const vested = schedules.map((schedule) => (block === null ? 0n : vestedAt(block, schedule)));
  const vestedBalance = vested.reduce((sum, one) => sum + one, 0n);
  const vestingTotal = schedules.reduce((sum, schedule) => sum + schedule.locked, 0n);
  if (block === null) return { vested, vestedBalance, vestingTotal, vestedClaimable: 0n };
  const claimable = vestingLock - (vestingTotal - vestedBalance);
  return { vested, vestedBalance, vestingTotal, vestedClaimable: claimable > 0n ? claimable : 0n };
}
