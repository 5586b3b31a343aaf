// The 2025 migration of the relay chains' balances, staking and vesting to their Asset
// Hubs: the heights it started and ended at on both sides, per Asset Hub (sidecar's
// table of the same facts), and which chains are Asset Hubs of which relay chain.

/** Where the heights the migration started and ended at on each side, per Asset Hub (sidecar's table). */
export interface MigrationWindow {
  assetHub: [number, number];
  relay: [number, number];
}

export const MIGRATIONS: Record<string, MigrationWindow> = {
  westmint: { assetHub: [11716733, 11736597], relay: [26041702, 26071771] },
  'asset-hub-paseo': { assetHub: [2593897, 2594172], relay: [7926930, 7927225] },
  statemine: { assetHub: [11150168, 11151931], relay: [30423691, 30425590] },
  statemint: { assetHub: [10254470, 10259208], relay: [28490502, 28495696] },
};

/** The Asset Hub each relay chain's vesting went to. */
export const ASSET_HUB_OF_RELAY: Record<string, string> = { polkadot: 'statemint', kusama: 'statemine', westend: 'westmint', paseo: 'asset-hub-paseo' };

/** The spec names sidecar counts as Asset Hubs. */
export const ASSET_HUBS = new Set(['statemine', 'statemint', 'westmint', 'asset-hub-paseo', 'yet-another-parachain']);
