// What an Asset Hub cannot read of the relay chain's BABE at its own blocks, per Asset
// Hub: the relay chain's epoch length, first slot and slot duration (sidecar's table of
// the same facts), and the Westend Asset Hub heights where staking was interrupted after
// the 2025 migration (sidecar refuses to answer staking routes there).
export interface RelayBabe {
  epochDuration: bigint;
  genesisSlot: bigint;
  slotDurationMs: bigint;
}

export const ASSET_HUB_BABE: Record<string, RelayBabe> = {
  statemint: { epochDuration: 2400n, genesisSlot: 265084563n, slotDurationMs: 6000n },
  statemine: { epochDuration: 600n, genesisSlot: 262493679n, slotDurationMs: 6000n },
  westmint: { epochDuration: 600n, genesisSlot: 264379767n, slotDurationMs: 6000n },
  'asset-hub-paseo': { epochDuration: 600n, genesisSlot: 284730328n, slotDurationMs: 6000n },
};

/** Inclusive ranges of heights, per spec name. */
const BAD_STAKING_BLOCKS: Record<string, { name: string; ranges: [number, number][] }> = {
  westmint: {
    name: 'Westend Asset Hub',
    ranges: [
      [11716733, 11717705],
      [11719812, 11723357],
      [11727799, 11727799],
      [11729426, 11733840],
      [11733907, 11746809],
    ],
  },
};

/** Why staking cannot be read at this height of this chain, or undefined. */
export function badStakingBlock(specName: string, height: number): string | undefined {
  const known = BAD_STAKING_BLOCKS[specName];
  if (!known?.ranges.some(([from, to]) => height >= from && height <= to)) return undefined;
  return (
    `Post migration, there were some interruptions to staking on ${known.name}, ` +
    `Block ${height} is in the list of known bad staking blocks in ${known.name}`
  );
}
