// The devnet as tests start it: the seeded chain, served from a scratch copy. With
// FASTCAR_TEST_NODE=real (the real-node project of jest.config.js) the same seeded history on a
// real node (polkadot-omni-node), behind the same shape: `chain.newBlock` there waits for the
// block the node builds by itself instead of building one.
import '../../devnet/quiet';
import type { Devnet } from '../../devnet/chain';
import { serveStoredChain } from '../../devnet/cli';
import { ensureSeededRealChain, nodeBinary, nodeCall, poolFedChain, serveRealChain } from '../../devnet/realNode';
import type { SeedManifest } from '../../devnet/seed';

/** Whether this test process runs its suites beside the real node. */
export const ON_REAL_NODE = process.env.FASTCAR_TEST_NODE === 'real';

/**
 * The real node's block time in the suites: an Asset Hub's own six seconds would make every
 * submission test wait; at one a second the head moves under most comparisons of head answers.
 */
export const TEST_BLOCK_TIME_MS = 2000;

/** Where the node shared by the real-node suites that only read answers (set by test/support/realNodeSetup.ts). */
export const SHARED_REAL_NODE_ENV = 'FASTCAR_SHARED_REAL_NODE';

export interface SharedRealNode {
  wsUrl: string;
  httpUrl: string;
  port: number;
}

/**
 * Beside the real node: `realBlockTimeMs`, its block time for this suite (a pool that must keep a
 * transaction a while), starts a node of its own; other suites share the one node of the run.
 * Those that send transactions there each sign with an account of their own (test/support/signer.ts).
 */
export async function startDevnet(options: { realBlockTimeMs?: number } = {}): Promise<{ devnet: Devnet; manifest: SeedManifest }> {
  if (!ON_REAL_NODE) return serveStoredChain(0);
  const sharedJson = process.env[SHARED_REAL_NODE_ENV];
  const ownNode = options.realBlockTimeMs !== undefined || !sharedJson;
  const served = ownNode
    ? await serveRealChain({ blockTimeMs: options.realBlockTimeMs ?? TEST_BLOCK_TIME_MS })
    : {
        node: JSON.parse(sharedJson as string) as SharedRealNode,
        manifest: (await ensureSeededRealChain(nodeBinary())).manifest,
        close: async () => undefined,
      };
  const { node } = served;
  const finalized = await nodeCall<string>(node.httpUrl, 'chain_getFinalizedHead');
  const { number } = await nodeCall<{ number: string }>(node.httpUrl, 'chain_getHeader', [finalized]);
  const chain = poolFedChain(node.httpUrl, { number: Number.parseInt(number, 16), hash: finalized });
  const devnet = { wsUrl: node.wsUrl, httpUrl: node.httpUrl, port: node.port, chain, close: served.close };
  return { devnet: devnet as unknown as Devnet, manifest: served.manifest };
}
