// The devnet as tests start it: the seeded chain, served from a scratch copy.
import '../../devnet/quiet';
import { serveStoredChain } from '../../devnet/cli';
import type { Devnet } from '../../devnet/chain';
import type { SeedManifest } from '../../devnet/seed';

export async function startDevnet(): Promise<{ devnet: Devnet; manifest: SeedManifest }> {
  return serveStoredChain(0);
}
