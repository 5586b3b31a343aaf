// What a hardware signer (Ledger's generic app, RFC-78) needs to show and sign a
// transaction: the metadata's merkle root, which the runtime's CheckMetadataHash checks,
// and the proof of the few types the transaction uses. The tree is built once per runtime
// from its V15 metadata (kept by ../metadata.ts) and kept in the proof worker; a request at
// a runtime already seen asks the node only where `at` is.
import { badRequest } from '../../errors';
import type { TieredCache } from '../../cache/tieredCache';
import type { SingleFlight } from '../../cache/singleFlight';
import type { NodeClient } from '../../rpc/nodeClient';
import { readAt, type AtBlock, type ReadAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { RuntimeMetadata } from '../metadata';
import type { RuntimeRegistry } from '../runtimes';
import { ProofRefused, type MetadataProofs, type ProofInfo, type ProofSubject } from './metadataProofs';

/** RFC-78 merkleizes metadata V15. */
const MERKLEIZED_VERSION = 15;

export class MetadataBlobs {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
    private readonly metadata: RuntimeMetadata,
    private readonly proofs: MetadataProofs,
    /** Tree builds in flight, shared by every request. */
    private readonly builds: SingleFlight<string>,
  ) {}

  /** Sidecar's answer as JSON text: where, the metadata hash, the proof, and the extra info the hash covers. */
  async blob(at: AtBlock, subject: ProofSubject): Promise<string> {
    const block = await readAt(this.node, this.ids, this.cache, at);
    const info = await this.infoOf(block);
    const key = `${block.version.specName}:${block.version.specVersion}`;
    const made = await this.proved(key, subject, block, info);
    return JSON.stringify({
      at: { hash: block.hash, height: String(block.number) },
      metadataHash: made.digest,
      metadataBlob: made.proof,
      // Numbers as decimal strings, as sidecar writes every number.
      specVersion: String(info.specVersion),
      specName: info.specName,
      base58Prefix: String(info.base58Prefix),
      decimals: String(info.decimals),
      tokenSymbol: info.tokenSymbol,
    });
  }

  private async proved(key: string, subject: ProofSubject, block: ReadAt, info: ProofInfo): Promise<{ digest: string; proof: string }> {
    try {
      const first = await this.proofs.prove(key, subject);
      if (first !== 'missing') return first;
      // The first request of a runtime builds its tree; those arriving meanwhile wait on that build.
      await this.builds.run(`tree:${key}`, async () => {
        const metadata = JSON.parse(await this.metadata.text(block, 'scale', MERKLEIZED_VERSION)) as string;
        return this.proofs.build(key, metadata, info);
      }).promise;
      const made = await this.proofs.prove(key, subject);
      if (made === 'missing') throw new Error('The metadata tree was dropped before use (more runtimes asked at once than are kept)');
      return made;
    } catch (error) {
      if (error instanceof ProofRefused) throw badRequest(`The transaction cannot be read with this runtime's metadata: ${error.message}`);
      throw error;
    }
  }

  /** The chain's native token as the runtime's registry knows it (the node's system properties), and the runtime's name. */
  private async infoOf(block: ReadAt): Promise<ProofInfo> {
    const { registry } = await this.runtimes.get(block.version, block.hash);
    return {
      specVersion: block.version.specVersion,
      specName: block.version.specName,
      base58Prefix: registry.chainSS58 ?? 42,
      decimals: registry.chainDecimals[0] ?? 10,
      tokenSymbol: registry.chainTokens[0] ?? 'DOT',
    };
  }
}
