// The devnet as tests start it: the seeded chain, served from a scratch copy. With
// FASTCAR_TEST_NODE=real (the real-node project of jest.config.js) the same seeded history on a
// real node (polkadot-omni-node), behind the same shape: `chain.newBlock` there waits for the
// block the node builds by itself instead of building one.
import '../../devnet/quiet';
import type { Devnet } from '../../devnet/chain';
import { serveStoredChain } from '../../devnet/cli';
import { nodeCall, poolFedChain, serveRealChain } from '../../devnet/realNode';
import type { SeedManifest } from '../../devnet/seed';

/** Whether this test process runs its suites beside the real node. */
export const ON_REAL_NODE = process.env.FASTCAR_TEST_NODE === 'real';

/**
 * The real node's block time in the suites: an Asset Hub's own six seconds would make every
 * submission test wait; at one a second the head moves under most comparisons of head answers.
 */
export const TEST_BLOCK_TIME_MS = 2000;

/** `realBlockTimeMs`: beside the real node, its block time for this suite (a pool that must keep a transaction a while). */
export async function startDevnet(options: { realBlockTimeMs?: number } = {}): Promise<{ devnet: Devnet; manifest: SeedManifest }> {
  if (!ON_REAL_NODE) return serveStoredChain(0);
  const served = await serveRealChain({ blockTimeMs: options.realBlockTimeMs ?? TEST_BLOCK_TIME_MS });
  const { node } = served;
  const finalized = await nodeCall<string>(node.httpUrl, 'chain_getFinalizedHead');
  const { number } = await nodeCall<{ number: string }>(node.httpUrl, 'chain_getHeader', [finalized]);
  const chain = poolFedChain(node.httpUrl, { number: Number.parseInt(number, 16), hash: finalized });
  const devnet = { wsUrl: node.wsUrl, httpUrl: node.httpUrl, port: node.port, chain, close: served.close };
  return { devnet: devnet as unknown as Devnet, manifest: served.manifest };
}
