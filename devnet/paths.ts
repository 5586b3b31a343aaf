import { join } from 'node:path';

export const DEVNET_DIR = __dirname;
export const RUNTIME_PATH = join(DEVNET_DIR, 'runtime', 'asset_hub_westend_runtime.compact.compressed.wasm');
export const RUNTIME_SHA256_PATH = join(DEVNET_DIR, 'runtime', 'runtime.sha256');
/** Where the seeded chain lives: the chain spec, the chopsticks database and what built them. */
export const CHAIN_DIR = join(DEVNET_DIR, 'chain');
export const CHAIN_SPEC_PATH = join(CHAIN_DIR, 'genesis.json');
export const CHAIN_DB_PATH = join(CHAIN_DIR, 'devnet.sqlite');
export const CHAIN_MANIFEST_PATH = join(CHAIN_DIR, 'manifest.json');
