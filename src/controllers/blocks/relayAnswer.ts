// useRcBlock answers: each block a relay chain block included, answered as this
// chain's own block with the relay block it came with, listed as sidecar lists them.
import type { CacheFact } from '../../http/reply';
import type { Included, RelayBlockRef } from '../../services/relayLink';

/** One included block's answer (its JSON, and whether it came from the cache). */
export interface Piece {
  json: string;
  cache?: CacheFact;
}

/** An included block's answer as sidecar lists it under useRcBlock: the answer, then the relay block it came with. */
export function withRelayFields({ value, ahTimestamp }: Included<Piece>, relayBlock: RelayBlockRef): string {
  const timestamp = ahTimestamp === undefined ? '' : `,"ahTimestamp":${JSON.stringify(ahTimestamp)}`;
  return `${value.json.slice(0, -1)},"rcBlockHash":"${relayBlock.hash}","rcBlockNumber":"${relayBlock.number}"${timestamp}}`;
}

/** The list, or with useRcBlockFormat=object the list wrapped with the relay block. */
export function relayAnswer(relayBlock: RelayBlockRef, items: Included<Piece>[], format: 'array' | 'object'): string {
  const list = `[${items.map((item) => withRelayFields(item, relayBlock)).join(',')}]`;
  if (format === 'array') return list;
  const rcBlock = JSON.stringify({ hash: relayBlock.hash, parentHash: relayBlock.parentHash, number: String(relayBlock.number) });
  return `{"rcBlock":${rcBlock},"parachainDataPerBlock":${list}}`;
}

/** Several blocks' cache facts as one: a miss if any was built. */
export function combinedCache(items: Included<Piece>[]): CacheFact | undefined {
  if (items.some(({ value }) => value.cache === 'miss')) return 'miss';
  return items.some(({ value }) => value.cache === 'hit') ? 'hit' : undefined;
}
