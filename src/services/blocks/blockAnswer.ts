// A block answer as the service hands it to controllers and keeps it in caches:
// the body serialized once (with where each extrinsic's JSON is in it, so one
// extrinsic is cut out without reading the rest), `finalized` and `decodedXcmMsgs`
// added as sidecar places them, and the cache entry format. The options that change
// an answer, and their keys, are answerVariant.ts's.
import type { Hex } from '../../rpc/nodeClient';
import type { SidecarBlock } from './blockShape';
import { forParachain, type XcmMessages } from './xcm';

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
  /** Where each extrinsic's JSON starts in `json`, then one past the list's last: extrinsic i is json[at[i], at[i + 1] - 1). */
  extrinsicsAt: number[];
  /** `decodedXcmMsgs` serialized, when asked for: sidecar lists it after `finalized`. */
  xcm?: string;
  finalized: boolean;
  /** Whether the answer can never change: finalized, canonical, complete. */
  immutable: boolean;
  fromCache: boolean;
  /** The extrinsics' hashes, on an answer just built (the extrinsic index takes them from it). */
  extrinsicHashes?: string[];
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

/**
 * A block's body as JSON, exactly as JSON.stringify writes it, noting where each
 * extrinsic's JSON is. One JSON.stringify of the whole is the fast way (stringifying
 * each extrinsic and joining the pieces costs twice as much on a 500-extrinsic block);
 * the places are then read from the text (placesInText), or, where it cannot say them
 * for certain, the pieces are written one by one.
 */
export function serializeBlock(body: SidecarBlock): Pick<BlockAnswer, 'json' | 'extrinsicsAt'> {
  const json = JSON.stringify(body);
  const extrinsicsAt = placesInText(body, json);
  return extrinsicsAt ? { json, extrinsicsAt } : serializePiecewise(body);
}

const ON_FINALIZE_KEY = ',"onFinalize":';
/** An extrinsic's JSON opens with its call's name and then its signature (null or not); a nested call has its args there instead. */
const CALL_OPENING = '{"method":{"pallet":"';
// Searched from its brace: V8 finds a pattern by its first character first, and `"` is everywhere in JSON.
const SIGNATURE_AFTER_CALL = '},"signature":';
/** A name JSON writes as it is, with no brace: nothing in it can end the call's name object early. */
const PLAIN_NAME = /^[A-Za-z0-9_]*$/;

/**
 * Where each extrinsic of `body` starts in `json` (body's JSON.stringify), then one past
 * the list's closing bracket; undefined when the text cannot say so for certain.
 * assembleBlock writes every extrinsic with its call's name first and its signature second:
 * `{"method":{"pallet":"P","method":"M"},"signature":` opens each one's JSON, given plain
 * names and a signature that is there (null or not), both checked here. No string value
 * can hold that text (its quotes would be escaped), and a nested call has its args after
 * its name, but some other object could still open that way: so the openings are counted,
 * and only exactly one per extrinsic proves that each found is an extrinsic's own.
 */
export function placesInText(body: SidecarBlock, json: string): number[] | undefined {
  const { extrinsics } = body;
  for (const { method, signature } of extrinsics) {
    if (signature === undefined || !method || !PLAIN_NAME.test(method.pallet) || !PLAIN_NAME.test(method.method)) return undefined;
  }
  // The body ends `],"onFinalize":{...}}`: the list's closing bracket is found from the end.
  const listEnd = json.length - 1 - JSON.stringify(body.onFinalize ?? null).length - ON_FINALIZE_KEY.length - 1;
  if (json.charCodeAt(listEnd) !== 0x5d /* ] */ || !json.startsWith(ON_FINALIZE_KEY, listEnd + 1)) return undefined;
  const count = extrinsics.length;
  const places = new Array<number>(count + 1);
  let found = 0;
  for (
    let mark = json.indexOf(SIGNATURE_AFTER_CALL);
    mark >= 0 && mark < listEnd;
    mark = json.indexOf(SIGNATURE_AFTER_CALL, mark + SIGNATURE_AFTER_CALL.length)
  ) {
    const start = json.lastIndexOf(CALL_OPENING, mark);
    // The call's name object must close right at the mark: `{"pallet":"P","method":"M"}` holds no other brace.
    if (start < 0 || json.indexOf('}', start + CALL_OPENING.length) !== mark) continue;
    if (found === count) return undefined;
    places[found++] = start;
  }
  if (found !== count) return undefined;
  places[count] = listEnd + 1;
  return places;
}

/** serializeBlock's result written the slow, certain way: each extrinsic stringified on its own, its place noted. */
export function serializePiecewise(body: SidecarBlock): Pick<BlockAnswer, 'json' | 'extrinsicsAt'> {
  const { extrinsics, onFinalize, ...before } = body;
  // `before` always holds the number and hash, so it is never `{}`.
  const pieces = [`${JSON.stringify(before).slice(0, -1)},"extrinsics":[`];
  const extrinsicsAt = new Array<number>(extrinsics.length + 1);
  let at = pieces[0].length;
  for (let i = 0; i < extrinsics.length; i++) {
    const text = JSON.stringify(extrinsics[i]);
    extrinsicsAt[i] = at;
    at += text.length + 1;
    pieces.push(i === 0 ? text : `,${text}`);
  }
  extrinsicsAt[extrinsics.length] = extrinsics.length === 0 ? at + 1 : at;
  pieces.push(`]${ON_FINALIZE_KEY}${JSON.stringify(onFinalize)}}`);
  // One join: the answer is copied once into a flat string, as JSON.stringify would write it.
  return { json: pieces.join(''), extrinsicsAt };
}

/** `/extrinsics/{index}`'s answer: the block's `index`th extrinsic with where it is; undefined when there is none. */
export function extrinsicJson(answer: Pick<BlockAnswer, 'json' | 'extrinsicsAt' | 'number' | 'hash'>, index: number): string | undefined {
  const { extrinsicsAt } = answer;
  if (index >= extrinsicsAt.length - 1) return undefined;
  const extrinsic = answer.json.slice(extrinsicsAt[index], extrinsicsAt[index + 1] - 1);
  return `{"at":${JSON.stringify({ height: String(answer.number), hash: answer.hash })},"extrinsics":${extrinsic}}`;
}

// A cached answer holds its JSON, its XCM messages when asked for, and where its
// extrinsics are, split by newlines (which JSON.stringify never writes); the
// extrinsics' places last, so they are found from the end of a megabyte answer.
const SEPARATOR = '\n';

export function toCached(answer: BlockAnswer): string {
  const xcm = answer.xcm === undefined ? '' : `${SEPARATOR}${answer.xcm}`;
  return `${answer.json}${xcm}${SEPARATOR}${answer.extrinsicsAt.join(',')}`;
}

export function fromCached(hash: Hex, cached: string, hasXcm: boolean): BlockAnswer {
  // Searched from the end, and the XCM split only where the key says it is there.
  const placesAt = cached.lastIndexOf(SEPARATOR);
  const extrinsicsAt = cached
    .slice(placesAt + 1)
    .split(',')
    .map(Number);
  const xcmAt = hasXcm ? cached.lastIndexOf(SEPARATOR, placesAt - 1) : -1;
  const json = cached.slice(0, xcmAt < 0 ? placesAt : xcmAt);
  const xcm = xcmAt < 0 ? undefined : cached.slice(xcmAt + 1, placesAt);
  return { hash, number: numberFromJson(json), json, extrinsicsAt, xcm, finalized: true, immutable: true, fromCache: true };
}

export function filterXcm(answer: BlockAnswer, paraId: number | undefined): BlockAnswer {
  if (answer.xcm === undefined || !paraId) return answer;
  return { ...answer, xcm: JSON.stringify(forParachain(JSON.parse(answer.xcm) as XcmMessages, paraId)) };
}

function numberFromJson(json: string): number {
  const match = /^\{"number":"(\d+)"/.exec(json);
  return match ? Number(match[1]) : -1;
}
