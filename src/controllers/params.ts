// Parsing of path and query parameters, with sidecar's messages where sidecar
// has one, and a 400 (not silence) where sidecar would quietly ignore a typo.
import { badRequest } from '../errors';
import type { RequestStats } from '../rpc/requestStats';
import type { BlockId, BlockQuery } from '../services/blocks/blockAnswer';

/**
 * What a route reads of a request: its path parameters, its query (parsed by Node's
 * querystring: Express's 'simple' parser), and where its node calls are counted. Made
 * from Express's request, or without Express by the direct routes (http/directRoutes.ts).
 */
export interface RouteRequest {
  params: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  stats: RequestStats;
}

export const MAX_RANGE = 500;
const U32_MAX = 0xffff_ffff;

function isUInt(value: number): boolean {
  return Number.isInteger(value) && value >= 0;
}

/** A block number beyond what a block number can be is a block beyond the head. */
export function parseBlockId(raw: string): BlockId | { kind: 'beyond'; number: number } {
  const isHex = /^0x[0-9a-fA-F]*$/.test(raw) && raw.length % 2 === 0;
  if (isHex && raw.length === 66) return { kind: 'hash', hash: raw.toLowerCase() as `0x${string}` };
  if (isHex) {
    throw badRequest(`Cannot get block hash for ${raw}. Hex string block IDs must be 32-bytes (66-characters) in length.`);
  }
  if (raw.startsWith('0x')) {
    throw badRequest(
      `Cannot get block hash for ${raw}. Hex string block IDs must be a valid hex string and must be 32-bytes (66-characters) in length.`,
    );
  }
  const number = Number(raw);
  if (raw.trim() === '' || !isUInt(number)) {
    throw badRequest(`Cannot get block hash for ${raw}. Block IDs must be either 32-byte hex strings or non-negative decimal integers.`);
  }
  return number > U32_MAX ? { kind: 'beyond', number } : { kind: 'number', number };
}

export function parseIndex(raw: string): number {
  const index = Number(raw);
  if (raw.trim() === '' || !isUInt(index)) throw badRequest('`exstrinsicIndex` path param is not a number');
  return index;
}

export function parseRange(raw: unknown): number[] {
  if (raw === undefined || raw === '') throw badRequest('range query parameter must be inputted.');
  if (typeof raw !== 'string') throw badRequest('Incorrect range format. Expected example: 0-999');
  const parts = raw.split('-');
  if (parts.length !== 2) throw badRequest('Incorrect range format. Expected example: 0-999');
  const min = Number(parts[0]);
  const max = Number(parts[1]);
  if (!isUInt(min)) throw badRequest('Inputted min value for range must be an unsigned integer.');
  if (!isUInt(max) || max === 0) throw badRequest('Inputted max value for range must be an unsigned non zero integer.');
  if (min >= max) throw badRequest('Inputted min value cannot be greater than or equal to the max value.');
  if (max - min > MAX_RANGE) throw badRequest(`Inputted range is greater than the ${MAX_RANGE} range limit.`);
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

const NOT_FLAGS = new Set(['range', 'paraId', 'useRcBlockFormat']);

/** `paraId`: a whole number, as sidecar demands; absent when not given. */
export function parseParaId(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' ? Number(raw) : NaN;
  if (!isUInt(value)) throw badRequest('paraId must be an integer');
  return value;
}

/** `useRcBlockFormat`: how a useRcBlock answer is laid out; only with useRcBlock=true, as sidecar demands. */
export function parseRcBlockFormat(raw: unknown, useRcBlock: boolean): 'array' | 'object' {
  if (raw === undefined) return 'array';
  if (!useRcBlock) throw badRequest('useRcBlockFormat parameter requires useRcBlock=true');
  if (raw !== 'array' && raw !== 'object') throw badRequest('useRcBlockFormat must be either "array" or "object"');
  return raw;
}

const nameOf = (name: string) => (name === 'noFee' ? 'noFees' : name);

/** Names as they may appear in a response header: plain characters, a few, short. */
export function headerList(names: string[]): string | undefined {
  const list = names
    .slice(0, 10)
    .map((name) => name.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40))
    .filter(Boolean)
    .join(', ');
  return list || undefined;
}

/** The query parameters a route does not use (sidecar ignores them). */
export function unusedParams(req: Pick<RouteRequest, 'query'>, allowed: readonly string[]): string[] {
  return Object.keys(req.query).filter((name) => !allowed.includes(nameOf(name)));
}

/**
 * Reads the boolean query flags a route accepts. Values other than true/false
 * are rejected: a malformed value must not silently change the answer (sidecar
 * treats a bad `noFees` as false). Parameters the route does not use are
 * ignored, as sidecar ignores them, or with `strict` rejected.
 */
export function parseFlags<K extends string>(req: Pick<RouteRequest, 'query'>, allowed: readonly K[], strict = true): Record<K, boolean | undefined> {
  const flags = {} as Record<K, boolean | undefined>;
  const errors: string[] = [];
  for (const [name, value] of Object.entries(req.query)) {
    const key = nameOf(name) as K;
    if (NOT_FLAGS.has(key) && allowed.includes(key)) continue; // read by parseRange, parseParaId
    if (!allowed.includes(key)) {
      if (strict) errors.push(`Unknown query parameter: ${name}.`);
      continue;
    }
    const text = typeof value === 'string' ? value.toLowerCase() : '';
    if (text !== 'true' && text !== 'false') {
      errors.push(`Query parameter: ${name} has an invalid boolean value of ${typeof value === 'string' ? value : JSON.stringify(value)}`);
      continue;
    }
    flags[key] = text === 'true';
  }
  if (errors.length) {
    const known = allowed.filter((name) => name !== 'range').join(', ');
    throw badRequest(`${errors.join(' - ')}${errors.some((e) => e.startsWith('Unknown')) ? ` Accepted: ${known}.` : ''}`);
  }
  return flags;
}

export function blockQuery(
  flags: Partial<Record<'eventDocs' | 'extrinsicDocs' | 'noFees' | 'decodedXcmMsgs', boolean>>,
  paraId?: number,
): BlockQuery {
  return {
    eventDocs: flags.eventDocs === true,
    extrinsicDocs: flags.extrinsicDocs === true,
    noFees: flags.noFees === true,
    decodedXcmMsgs: flags.decodedXcmMsgs === true,
    paraId,
  };
}

/**
 * The one spelling of a block answer's URL: the height in decimal or the hash in lower
 * case, then only the options that change the answer, in the route's order, spelled
 * `name=true|false` with the alias resolved. Every spelling sidecar's parsing accepts
 * (`0005`, `5.0`, `0b101`, `noFee=TRUE`, `noFees=false`, ...) answers the same bytes as
 * this one, and this is the only one kept as a warm answer: one entry per block and options.
 */
export function canonicalBlockPath(
  mount: string,
  id: BlockId,
  query: BlockQuery,
  options: { includeTag: boolean; useEvmFormat: boolean },
): string {
  const set: string[] = [];
  if (query.eventDocs) set.push('eventDocs=true');
  if (query.extrinsicDocs) set.push('extrinsicDocs=true');
  if (query.noFees) set.push('noFees=true');
  if (!options.includeTag) set.push('finalizedKey=false');
  if (query.decodedXcmMsgs) set.push('decodedXcmMsgs=true');
  // paraId filters only the XCM messages, and 0 filters nothing.
  if (query.decodedXcmMsgs && query.paraId) set.push(`paraId=${query.paraId}`);
  if (options.useEvmFormat) set.push('useEvmFormat=true');
  const path = `${mount}/blocks/${id.kind === 'number' ? id.number : id.hash}`;
  return set.length === 0 ? path : `${path}?${set.join('&')}`;
}
