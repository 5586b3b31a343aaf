// A coretime chain devnet: Coretime Westend (devnet/coretime-runtime, the published
// runtime, unchanged) run by chopsticks from its `development` genesis, for the
// Broker pallet's routes. chopsticks mocks the parachain inherents as it does for the
// Asset Hub devnet, and lets each block name its relay parent number, which is the
// clock the Broker ticks by (test/support/coretimeState.ts moves it forward).
//
// The development preset names no sudo key, and every Broker setting call is root-only,
// so the spec adds one (Alice) to the genesis storage: what a preset with a `sudo` entry
// would have written, and what a test chain's spec usually carries.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuildBlockMode, setupWithServer } from '@acala-network/chopsticks';
import { Keyring } from '@polkadot/keyring';
import { u8aToHex } from '@polkadot/util';
import { cryptoWaitReady, xxhashAsHex } from '@polkadot/util-crypto';

import { cachedChainSpec, inChopsticksTurn } from './chain';
import { buildChainSpec, DevnetSetupError, type ChainSpec } from './genesis';
import { CHAIN_DIR, DEVNET_DIR } from './paths';

const RUNTIME_DIR = join(DEVNET_DIR, 'coretime-runtime');
const RUNTIME_FILE = join(RUNTIME_DIR, 'coretime_westend_runtime.compact.compressed.wasm');
const SPEC_PATH = join(CHAIN_DIR, 'coretime-genesis.json');
/** `Sudo::Key`, the storage item pallet-sudo's genesis config writes. */
const SUDO_KEY_STORAGE = `0x${xxhashAsHex('Sudo', 128).slice(2)}${xxhashAsHex('Key', 128).slice(2)}`;

export interface CoretimeDevnet {
  wsUrl: string;
  /** The height chopsticks built at start, before anything was submitted. */
  head: number;
  /** The sudo key the spec gives the chain (Alice's account, hex). */
  sudo: string;
  close(): Promise<void>;
}

function loadCoretimeRuntime(): Buffer {
  let wasm: Buffer;
  try {
    wasm = readFileSync(RUNTIME_FILE);
  } catch {
    throw new DevnetSetupError(`coretime runtime missing (${RUNTIME_FILE}): restore it with "git checkout devnet/coretime-runtime"`);
  }
  const expected = readFileSync(join(RUNTIME_DIR, 'runtime.sha256'), 'utf8').split(/\s+/)[0];
  const actual = createHash('sha256').update(wasm).digest('hex');
  if (actual !== expected)
    throw new DevnetSetupError(
      `coretime runtime ${RUNTIME_FILE} has sha256 ${actual}, expected ${expected}: restore it with "git checkout devnet/coretime-runtime"`,
    );
  return wasm;
}

async function aliceAccount(): Promise<string> {
  await cryptoWaitReady();
  return u8aToHex(new Keyring({ type: 'sr25519' }).addFromUri('//Alice').publicKey);
}

/** Written once next to the other specs; the sudo key is part of what is cached. */
async function coretimeSpec(sudo: string): Promise<ChainSpec> {
  const wasm = loadCoretimeRuntime();
  return cachedChainSpec(wasm, SPEC_PATH, async () => {
    const spec = await buildChainSpec(wasm);
    spec.genesis.raw.top[SUDO_KEY_STORAGE] = sudo;
    return { ...spec, name: 'fastcar devnet (Coretime Westend)', id: 'fastcar-coretime-devnet' };
  });
}

export async function startCoretimeDevnet(options: { port: number; host?: string }): Promise<CoretimeDevnet> {
  const sudo = await aliceAccount();
  const spec = await coretimeSpec(sudo);
  if (spec.genesis.raw.top[SUDO_KEY_STORAGE] !== sudo) throw new DevnetSetupError(`${SPEC_PATH} has no sudo key: delete it so it is built again`);
  const host = options.host ?? '127.0.0.1';
  const server = await inChopsticksTurn(() =>
    setupWithServer({
      port: options.port,
      host,
      genesis: spec,
      'build-block-mode': BuildBlockMode.Manual,
      'runtime-log-level': 0,
    } as Parameters<typeof setupWithServer>[0]),
  );
  return {
    wsUrl: `ws://${host}:${Number(server.addr.split(':').pop())}`,
    head: server.chain.head.number,
    sudo,
    close: () => server.close(),
  };
}
