// The real-node project's global setup: the seeded chain made once (about four minutes, the
// first time on a machine) before any suite copies it, not by two workers at once.
import '../../devnet/quiet';
import { ensureSeededRealChain, nodeBinary } from '../../devnet/realNode';

export default async function seedRealChainOnce(): Promise<void> {
  await ensureSeededRealChain(nodeBinary(), (line) => process.stderr.write(`${line}\n`));
}
