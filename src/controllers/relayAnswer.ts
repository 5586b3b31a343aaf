// useRcBlock answers, for every family that serves them: each block a relay chain
// block included, answered as this chain's own block with the relay block it came
// with, listed as sidecar lists them; and the parameters that ask for them.
import { RELAY_SETTING } from '../config';
import { badRequest } from '../errors';
import type { CacheFact, Reply } from '../http/reply';
import type { QueryParameter, RouteRequest } from '../http/routes';
import type { Hex } from '../rpc/nodeClient';
import type { AtBlock, AnswerAt } from '../services/shared/at/blockAt';
import type { Included, RelayBlockRef, RelayLink } from '../services/relayLink';
import { replyAt } from './answers';
import { parseAt } from './params';

/** What useRcBlock=true reads: the link to the relay chain, 'unconfigured' when this chain could have one but none was set, 'relay' on its own routes. */
export type RelayOption = RelayLink | 'unconfigured' | 'relay';

/** useRcBlock and useRcBlockFormat, as every family that reads at a block of this chain declares them. */
export const RELAY_BLOCK_PARAMETERS = {
  useRcBlock: {
    type: 'boolean',
    default: false,
    description:
      'On a parachain (Asset Hub): `at` is a relay chain block, and the answer lists the answer at each block of this chain it included, ' +
      'each with `rcBlockHash`, `rcBlockNumber`, `ahTimestamp` (needs FASTCAR_RELAY_URL).',
  },
  useRcBlockFormat: {
    type: 'string',
    pattern: '^(array|object)$',
    description: 'With useRcBlock: `object` wraps the list with the relay block (`rcBlock`, `parachainDataPerBlock`).',
  },
} as const satisfies Record<'useRcBlock' | 'useRcBlockFormat', QueryParameter>;

/** `useRcBlockFormat`: how a useRcBlock answer is laid out; only with useRcBlock=true, as sidecar demands. */
function parseRcBlockFormat(raw: unknown, useRcBlock: boolean): 'array' | 'object' {
  if (raw === undefined) return 'array';
  if (!useRcBlock) throw badRequest('useRcBlockFormat parameter requires useRcBlock=true');
  if (raw !== 'array' && raw !== 'object') throw badRequest('useRcBlockFormat must be either "array" or "object"');
  return raw;
}

/** The relay link useRcBlock=true reads through, or the 400 saying why there is none. */
function relayLinkOf(relay: RelayOption | undefined): RelayLink {
  if (relay === 'relay' || relay === undefined) throw badRequest('useRcBlock parameter is only supported for parachain (Asset Hub) endpoints');
  if (relay === 'unconfigured') throw badRequest(`useRcBlock parameter requires a relay chain node: set ${RELAY_SETTING}`);
  return relay;
}

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

/** How a route that takes useRcBlock answers this request: with the relay link and layout when asked, else at this chain's own `at`. */
export interface RelayChoice {
  relayLink: RelayLink | undefined;
  format: 'array' | 'object';
}

/** useRcBlock's checks (after the route's flags), made before the route's own as sidecar makes them. */
export function relayChoiceOf(req: RouteRequest, relay: RelayOption | undefined): RelayChoice {
  const useRcBlock = req.flags().useRcBlock === true;
  const format = parseRcBlockFormat(req.query.useRcBlockFormat, useRcBlock);
  return { format, relayLink: useRcBlock ? relayLinkOf(relay) : undefined };
}

/**
 * The answer at `at` (tagged for clients to keep when final), or with useRcBlock the answer at
 * each block of this chain the relay block `at` included (never kept: the relay block may not be final).
 */
export async function answerAtOrIncluded(req: RouteRequest, choice: RelayChoice, tag: string, read: (at: AtBlock) => Promise<AnswerAt>): Promise<Reply> {
  const at = parseAt(req.query.at);
  if (choice.relayLink) {
    const link = choice.relayLink.forRequest(req.stats);
    const { relayBlock, items } = await link.eachIncluded(at, async (hash: Hex) => ({ json: (await read({ kind: 'hash', hash })).json }));
    return { body: relayAnswer(relayBlock, items, choice.format) };
  }
  return replyAt(await read(at), tag);
}
