// The relay chain block that included a parachain block: one of the few relay blocks
// after the relay parent it was built on (sidecar looks at the next ten). All ten are
// asked in one wave, and the earliest that included the block wins, which is the block
// sidecar's search in two rounds of five finds; when none did, the relay parent
// stands in, as in sidecar.
import { BeyondHeadError } from '../../errors';
import type { Hex } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import type { RelayLink } from '../relayLink';

const SEARCH_DEPTH = 10;

export async function inclusionHeight(link: RelayLink, hash: Hex, relayParent: number): Promise<number> {
  const heights = Array.from({ length: SEARCH_DEPTH }, (_, i) => relayParent + 1 + i);
  // A height past the relay chain's head includes nothing yet; any other failure fails the answer (sidecar takes it for
  // "not included" and answers by the relay parent: a wrong answer, which clients keep for good at a final block).
  const includedAt = (number: number) =>
    link.includedBy({ kind: 'number', number }).then(
      (found) => found.hashes,
      (error: unknown) => {
        if (error instanceof BeyondHeadError) return [] as Hex[];
        throw error;
      },
    );
  const included = await wave(heights.map(includedAt));
  const at = included.findIndex((hashes) => hashes.includes(hash));
  return at === -1 ? relayParent : heights[at]!;
}
