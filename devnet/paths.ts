import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The source folder, also when this runs compiled from dist/devnet. */
export const DEVNET_DIR = existsSync(join(__dirname, 'runtime')) ? __dirname : join(__dirname, '..', '..', 'devnet');
/** Overridable for the tests of what happens when the runtime or database is broken. */
export const RUNTIME_PATH = process.env.DEVNET_RUNTIME_PATH ?? join(DEVNET_DIR, 'runtime', 'asset_hub_westend_runtime.compact.compressed.wasm');
export const RUNTIME_SHA256_PATH = join(DEVNET_DIR, 'runtime', 'runtime.sha256');
/** Where the seeded chain lives: the chopsticks database, what built it, and the derived chain spec. */
export const CHAIN_DIR = join(DEVNET_DIR, 'chain');
export const CHAIN_SPEC_PATH = join(CHAIN_DIR, 'genesis.json');
export const CHAIN_DB_PATH = process.env.DEVNET_DB_PATH ?? join(CHAIN_DIR, 'devnet.sqlite');
export const CHAIN_MANIFEST_PATH = join(CHAIN_DIR, 'manifest.json');
