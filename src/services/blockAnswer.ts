// A block answer as the service hands it to controllers and keeps it in caches:
// the body serialized once, `finalized` and `decodedXcmMsgs` added as sidecar
// places them, the cache entry format, and the short key of the options that
// change the JSON (cache keys, ETags).
import type { Hex } from '../rpc/nodeClient';
import { forParachain, type XcmMessages } from './xcm';

export type BlockId = { kind: 'number'; number: number } | { kind: 'hash'; hash: Hex };

export interface BlockQuery {
  eventDocs: boolean;
  extrinsicDocs: boolean;
  noFees: boolean;
  decodedXcmMsgs: boolean;
  /** Keep only the XCM messages this parachain sent (with decodedXcmMsgs). */
  paraId?: number;
}

/** A block answer: its JSON without the `finalized` field, which the caller appends. */
export interface BlockAnswer {
  hash: Hex;
  number: number;
  /** The block body serialized, ending in `}`, without `finalized`. */
  json: string;
  /** `decodedXcmMsgs` serialized, when asked for: sidecar lists it after `finalized`. */
  xcm?: string;
  finalized: boolean;
  /** Whether the answer can never change: finalized, canonical, complete. */
  immutable: boolean;
  fromCache: boolean;
}

/** The options that change a block's JSON, as a short key (cache keys, ETags). */
export function queryKey(query: BlockQuery): string {
  return `${Number(query.eventDocs)}${Number(query.extrinsicDocs)}${Number(query.noFees)}${Number(query.decodedXcmMsgs)}`;
}

/** What follows the body's last field when sent: `finalized` unless left out, `decodedXcmMsgs` if asked for. */
function sentTail(answer: Pick<BlockAnswer, 'finalized' | 'xcm'>, include: boolean): string | undefined {
  if (!include && answer.xcm === undefined) return undefined;
  const tag = include ? `,"finalized":${answer.finalized}` : '';
  const xcm = answer.xcm === undefined ? '' : `,"decodedXcmMsgs":${answer.xcm}`;
  return `${tag}${xcm}}`;
}

/** The answer as sent: the body, then `finalized` unless left out, then `decodedXcmMsgs` if asked for. */
export function withFinalizedTag(answer: Pick<BlockAnswer, 'json' | 'finalized' | 'xcm'>, include: boolean): string {
  const tail = sentTail(answer, include);
  return tail === undefined ? answer.json : `${answer.json.slice(0, -1)}${tail}`;
}

/**
 * The same answer as UTF-8 bytes, written in two parts: joining a big block's JSON to
 * its tail as a string first would copy it whole once more before encoding it.
 */
export function answerBytes(answer: Pick<BlockAnswer, 'json' | 'finalized' | 'xcm'>, include: boolean): Buffer {
  const tail = sentTail(answer, include);
  if (tail === undefined) return Buffer.from(answer.json);
  const head = answer.json.slice(0, -1);
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(head) + Buffer.byteLength(tail));
  bytes.write(tail, bytes.write(head, 0));
  return bytes;
}

// A cached answer with its XCM messages holds both, split by a newline, which
// JSON.stringify never writes.
const XCM_SEPARATOR = '\n';

export function toCached(answer: BlockAnswer): string {
  return answer.xcm === undefined ? answer.json : `${answer.json}${XCM_SEPARATOR}${answer.xcm}`;
}

export function fromCached(hash: Hex, cached: string, hasXcm: boolean): BlockAnswer {
  // Searched from the end, and only where the key says it is there: block answers run to megabytes.
  const split = hasXcm ? cached.lastIndexOf(XCM_SEPARATOR) : -1;
  const json = split < 0 ? cached : cached.slice(0, split);
  const xcm = split < 0 ? undefined : cached.slice(split + 1);
  return { hash, number: numberFromJson(json), json, xcm, finalized: true, immutable: true, fromCache: true };
}

export function filterXcm(answer: BlockAnswer, paraId: number | undefined): BlockAnswer {
  if (answer.xcm === undefined || !paraId) return answer;
  return { ...answer, xcm: JSON.stringify(forParachain(JSON.parse(answer.xcm) as XcmMessages, paraId)) };
}

function numberFromJson(json: string): number {
  const match = /^\{"number":"(\d+)"/.exec(json);
  return match ? Number(match[1]) : -1;
}

