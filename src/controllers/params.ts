// Query parameters as every route family reads them, with sidecar's messages where
// sidecar has one, and a 400 (not silence) where sidecar would quietly ignore a typo.
import { badRequest } from '../errors';
import type { Flags, QueryParameter, QueryReader, RouteRequest, Schema } from '../http/routes';
import { closed, decimal, hash } from '../http/schemas';
import type { BlockId } from '../services/shared/at/blockIds';

/** How a family treats parameters its routes do not use. */
export interface ParamOptions {
  /** Reject them, instead of ignoring them as sidecar does. */
  strictParams: boolean;
  /** Told how many a request had. */
  onIgnoredParams?: (count: number) => void;
}

/**
 * The most blocks one request may read: a range (counted as sidecar counts it, the
 * heights between its ends) or a window of heights searched.
 */
export const MAX_BLOCKS_PER_REQUEST = 500;

const U32_MAX = 0xffff_ffff;

export function isUInt(value: number): boolean {
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
    throw badRequest(`Cannot get block hash for ${raw}. Hex string block IDs must be a valid hex string and must be 32-bytes (66-characters) in length.`);
  }
  const number = Number(raw);
  if (raw.trim() === '' || !isUInt(number)) {
    throw badRequest(`Cannot get block hash for ${raw}. Block IDs must be either 32-byte hex strings or non-negative decimal integers.`);
  }
  return number > U32_MAX ? { kind: 'beyond', number } : { kind: 'number', number };
}

export const AT_PARAMETER: QueryParameter = {
  type: 'string',
  description: 'The block read at: a height (decimal) or a block hash (0x and 64 hex digits); the finalized head when absent.',
};

/** Where an answer read at a block says it was read. */
export const AT_SCHEMA: Schema = closed({ height: decimal, hash });

/** `at`: the block a read is made at; absent (or given twice), the finalized head, as sidecar reads it. */
export function parseAt(raw: unknown): BlockId | 'finalized' {
  if (typeof raw !== 'string') return 'finalized';
  // Sidecar reads an empty `at` as Number('') = height 0.
  const id = parseBlockId(raw === '' ? '0' : raw);
  return id.kind === 'beyond' ? { kind: 'number', number: id.number } : id;
}

/** Parameters that carry values, not true/false (read by their own parsers) when no table says. */
const VALUED = ['range', 'paraId', 'useRcBlockFormat', 'from', 'to'];

/** `noFee` is sidecar's other spelling of noFees; `name[]` (a list repeated, as qs writes it) is `name`. */
const nameOf = (name: string) => (name === 'noFee' ? 'noFees' : name.endsWith('[]') ? name.slice(0, -2) : name);

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
 * ignored, as sidecar ignores them, or with `strict` rejected; those in `valued`
 * carry values and are left to their own parsers.
 */
export function parseFlags<K extends string>(
  req: Pick<RouteRequest, 'query'>,
  allowed: readonly K[],
  strict = true,
  valued: readonly string[] = VALUED,
): Record<K, boolean | undefined> {
  const flags = {} as Record<K, boolean | undefined>;
  const errors: string[] = [];
  for (const [name, value] of Object.entries(req.query)) {
    const key = nameOf(name) as K;
    if (valued.includes(key) && allowed.includes(key)) continue;
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

const NO_RELAY_BLOCK = 'useRcBlock is not served on this route';

/**
 * How every route reads its query (the binder asks it: http/routeBinder.ts): the route's
 * flags (its boolean parameters), and the parameters it does not use, named for
 * X-Ignored-Params (or, strict, a 400). `useRcBlock=true` on a route that does not take
 * it is refused rather than ignored: the client expects another chain's block.
 */
export function queryReader(options: ParamOptions): QueryReader {
  return (query, route, family) => {
    const allowed = route.query;
    if (query.useRcBlock === 'true' && !allowed.includes('useRcBlock')) throw badRequest(family.noRelayBlock ?? NO_RELAY_BLOCK);
    const valued = allowed.filter((name) => family.parameters[name]?.type !== 'boolean');
    const flags: Flags = parseFlags({ query }, allowed, options.strictParams, valued);
    const ignored = unusedParams({ query }, allowed);
    if (ignored.length === 0) return { flags };
    options.onIgnoredParams?.(ignored.length);
    return { flags, ignoredParams: headerList(ignored) };
  };
}
