// The real-node project's global setup: the seeded chain made once (about four minutes, the
// first time on a machine) before any suite copies it, not by two workers at once; then one
// real node that the suites which only read share (test/support/devnet.ts), as the clients
// of one archive node do; those that send transactions there each sign with an account of
// their own. A suite that needs another block time starts a node of its own.
import '../../devnet/quiet';
import { ensureSeededRealChain, nodeBinary, serveRealChain, type ServedRealChain } from '../../devnet/realNode';
import { SHARED_REAL_NODE_ENV, TEST_BLOCK_TIME_MS, type SharedRealNode } from './devnet';

declare global {
  // The shared node, for the global teardown (the same process).
  var fastcarSharedRealNode: ServedRealChain | undefined;
}

export default async function startSharedRealNode(): Promise<void> {
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  await ensureSeededRealChain(nodeBinary(), progress);
  const served = await serveRealChain({ blockTimeMs: TEST_BLOCK_TIME_MS, startTimeoutMs: 300_000 });
  globalThis.fastcarSharedRealNode = served;
  const shared: SharedRealNode = { wsUrl: served.node.wsUrl, httpUrl: served.node.httpUrl, port: served.node.port };
  // The workers are started after this, and inherit it.
  process.env[SHARED_REAL_NODE_ENV] = JSON.stringify(shared);
}
