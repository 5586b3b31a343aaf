// Builds the devnet's genesis from the runtime's own `development` preset, by
// calling the GenesisBuilder runtime API in chopsticks' wasm executor.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { runTask } from '@acala-network/chopsticks-core';
import { TypeRegistry } from '@polkadot/types';
import { compactAddLength, hexToU8a, stringToU8a, u8aToHex } from '@polkadot/util';
import type { HexString } from '@polkadot/util/types';

import { CODE_KEY } from './compact';
import { RUNTIME_PATH, RUNTIME_SHA256_PATH } from './paths';

export interface ChainSpec {
  name: string;
  id: string;
  properties: { ss58Format: number; tokenDecimals: number; tokenSymbol: string };
  genesis: { raw: { top: Record<string, string> } };
}

const registry = new TypeRegistry();

export class DevnetSetupError extends Error {}

/** Reads the committed runtime and refuses one whose sha256 is not the recorded one. */
export function loadRuntime(): { wasm: Buffer; sha256: string } {
  let wasm: Buffer;
  try {
    wasm = readFileSync(RUNTIME_PATH);
  } catch {
    throw new DevnetSetupError(
      `runtime file missing (${RUNTIME_PATH}): restore it with "git checkout devnet/runtime" or rebuild it with "npm run devnet:rebuild-runtime"`,
    );
  }
  const sha256 = createHash('sha256').update(wasm).digest('hex');
  const expected = readFileSync(RUNTIME_SHA256_PATH, 'utf8').split(/\s+/)[0];
  if (sha256 !== expected) {
    throw new DevnetSetupError(
      `runtime file ${RUNTIME_PATH} has sha256 ${sha256}, expected ${expected}: restore it with "git checkout devnet/runtime"`,
    );
  }
  return { wasm, sha256 };
}

// Genesis is built on empty storage: every read finds nothing.
const emptyStorage = {
  getStorage: async () => undefined,
  getNextKey: async () => undefined,
  offchainGetStorage: async () => undefined,
  offchainTimestamp: async () => 0,
  offchainRandomSeed: async () => u8aToHex(new Uint8Array(32)),
  offchainSubmitTransaction: async () => false,
};

async function callRuntime(wasm: HexString, method: string, arg: HexString) {
  const response = await runTask({
    wasm,
    calls: [[method, [arg]]],
    mockSignatureHost: false,
    allowUnresolvedImports: false,
    runtimeLogLevel: 0,
  }, emptyStorage);
  if ('Error' in response) throw new DevnetSetupError(`${method} failed in the executor: ${response.Error}`);
  return response.Call;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Objects merge key by key; arrays and scalars in the patch replace. */
export function deepMerge(base: Json, patch: Json): Json {
  if (isObject(base) && isObject(patch)) {
    const merged: { [key: string]: Json } = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      merged[key] = key in base ? deepMerge(base[key], value) : value;
    }
    return merged;
  }
  return patch;
}

function isObject(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function getPreset(wasm: HexString, name: string | null): Promise<Json> {
  const arg = registry.createType('Option<Text>', name).toU8a();
  const { result } = await callRuntime(wasm, 'GenesisBuilder_get_preset', u8aToHex(arg));
  const bytes = registry.createType('Option<Bytes>', hexToU8a(result));
  if (bytes.isNone) throw new DevnetSetupError(`the runtime has no genesis preset ${name ?? '(default)'}`);
  return JSON.parse(Buffer.from(bytes.unwrap().toU8a(true)).toString('utf8')) as Json;
}

export async function buildChainSpec(wasmBytes: Buffer): Promise<ChainSpec> {
  const wasm = u8aToHex(wasmBytes);
  const [defaults, development] = await Promise.all([getPreset(wasm, null), getPreset(wasm, 'development')]);
  const config = deepMerge(defaults, development) as { [key: string]: Json };
  // The preset's 1000 validators and 25000 nominators take over ten minutes to
  // build in the executor; the devnet needs none of them.
  const staking = config.staking;
  if (isObject(staking)) staking.devStakers = null;

  const json = compactAddLength(stringToU8a(JSON.stringify(config)));
  const { result, storageDiff } = await callRuntime(wasm, 'GenesisBuilder_build_state', u8aToHex(json));
  const outcome = registry.createType('Result<(), Text>', hexToU8a(result));
  if (outcome.isErr) throw new DevnetSetupError(`GenesisBuilder_build_state: ${outcome.asErr.toString()}`);

  const top: Record<string, string> = {};
  for (const [key, value] of storageDiff) if (value != null) top[key] = value;
  top[CODE_KEY] = wasm;
  return {
    name: 'fastcar devnet (Asset Hub Westend)',
    id: 'fastcar-devnet',
    properties: { ss58Format: 42, tokenDecimals: 12, tokenSymbol: 'WND' },
    genesis: { raw: { top } },
  };
}
