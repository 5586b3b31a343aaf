// The devnet's relay chain: Westend (devnet/relay-runtime, the published runtime,
// unchanged) run by chopsticks from its `development` genesis beside the Asset Hub
// devnet, with a few blocks built at start (about 1.5 s each), one carrying a signed
// transfer. chopsticks builds relay blocks with empty parachain inherents: they include
// no Asset Hub candidates, so `useRcBlock` finds none here (recorded Polkadot history
// covers that: harness/relayChain.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuildBlockMode, setupWithServer } from '@acala-network/chopsticks';
import { ApiPromise, WsProvider } from '@polkadot/api';
import { Keyring } from '@polkadot/keyring';
import { cryptoWaitReady } from '@polkadot/util-crypto';

import { cachedChainSpec, inChopsticksTurn } from './chain';
import { buildChainSpec, DevnetSetupError, type ChainSpec } from './genesis';
import { CHAIN_DIR, DEVNET_DIR } from './paths';

const RUNTIME_DIR = join(DEVNET_DIR, 'relay-runtime');
const RUNTIME_FILE = join(RUNTIME_DIR, 'westend_runtime.compact.compressed.wasm');
const SPEC_PATH = join(CHAIN_DIR, 'relay-genesis.json');

export interface RelayDevnet {
  wsUrl: string;
  /** Heights built at start, and the one with the transfer. */
  head: number;
  transferBlock: number;
  close(): Promise<void>;
}

function loadRelayRuntime(): Buffer {
  const wasm = readFileSync(RUNTIME_FILE);
  const expected = readFileSync(join(RUNTIME_DIR, 'runtime.sha256'), 'utf8').split(/\s+/)[0];
  const actual = createHash('sha256').update(wasm).digest('hex');
  if (actual !== expected)
    throw new DevnetSetupError(`relay runtime ${RUNTIME_FILE} has sha256 ${actual}, expected ${expected}: restore it with "git checkout devnet/relay-runtime"`);
  return wasm;
}

/** Written once next to the Asset Hub spec. */
async function relaySpec(): Promise<ChainSpec> {
  const wasm = loadRelayRuntime();
  return cachedChainSpec(wasm, SPEC_PATH, async () => ({
    ...(await buildChainSpec(wasm)),
    name: 'fastcar devnet (Westend relay)',
    id: 'fastcar-relay-devnet',
  }));
}

export async function startRelayDevnet(options: { port: number; host?: string; blocks?: number }): Promise<RelayDevnet> {
  const spec = await relaySpec();
  return inChopsticksTurn(() => startWith(spec, options));
}

async function startWith(spec: ChainSpec, options: { port: number; host?: string; blocks?: number }): Promise<RelayDevnet> {
  const host = options.host ?? '127.0.0.1';
  const server = await setupWithServer({
    port: options.port,
    host,
    genesis: spec,
    'build-block-mode': BuildBlockMode.Manual,
    'runtime-log-level': 0,
  } as Parameters<typeof setupWithServer>[0]);
  const { chain } = server;
  const wsUrl = `ws://${host}:${Number(server.addr.split(':').pop())}`;
  // Block 1 (after chopsticks' own first block) carries a keep-alive transfer from Alice to Bob, signed
  // immortal so the chain does not depend on when it starts; then empty blocks.
  await cryptoWaitReady();
  const api = await ApiPromise.create({ provider: new WsProvider(wsUrl), noInitWarn: true });
  try {
    const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
    const [alice, bob] = ['//Alice', '//Bob'].map((uri) => keyring.addFromUri(uri));
    const transfer = (await api.tx.balances.transferKeepAlive(bob.address, 1_000_000_000_000n).signAsync(alice, { nonce: 0, era: 0 })).toHex();
    const block = await chain.newBlock({ transactions: [transfer] });
    if (!(await block.extrinsics).includes(transfer)) throw new DevnetSetupError('the relay devnet left its transfer out');
  } finally {
    await api.disconnect();
  }
  const transferBlock = chain.head.number;
  for (let i = 0; i < (options.blocks ?? 2); i++) await chain.newBlock();
  return { wsUrl, head: chain.head.number, transferBlock, close: () => server.close() };
}
