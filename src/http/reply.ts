// The one writer of answers. Controllers (and the app, for health, errors and
// unknown paths) hand it a reply value; the warm path hands it the same value
// kept from the first time. Conditional requests, caching headers, encoding, the
// node-call counts and the cache fact are written here and nowhere else (a stream
// of events, once its headers are sent, is written by its own sink: http/sse.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';

import { newRequestStats, type RequestStats } from '../rpc/requestStats';
import { compress, compressor, MIN_COMPRESS_BYTES, MIN_COMPRESS_ONCE_BYTES, pickEncoding, type Encoding } from './compression';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const JSON_TYPE = 'application/json; charset=utf-8';

export type CacheFact = 'hit' | 'miss';

/** What a request cost the node, as the answer announces it; the writer notes the cache fact it sent. */
export type CallCounts = Pick<RequestStats, 'rpcCalls' | 'waves' | 'cache'>;

export interface Reply {
  /** 200 unless said. */
  status?: number;
  /** JSON unless `contentType` says otherwise. */
  body: Buffer | string;
  contentType?: string;
  /** A finalized, complete answer: sent as immutable with this ETag, 304 when the client has it. */
  etag?: string;
  /** For answers that may change: `no-store` unless said. */
  cacheControl?: string;
  /** Where a finalized answer may be kept as wire bytes: its canonical URL. */
  hotKey?: string;
  /** Whether a block answer came from the cache. */
  cache?: CacheFact;
  /** Query parameters the route ignored, as a header value. */
  ignoredParams?: string;
  retryAfterSeconds?: number;
  /** The body compressed, when it is kept compressed (warm answers); else compressed per request. */
  encoded?: (encoding: Encoding) => Promise<Buffer>;
}

/** One item of a streamed JSON array, with the cache fact of the block it holds. */
export interface StreamItem {
  json: string;
  cache?: CacheFact;
}

/** An answer written as it is made: a JSON array whose items come one after another. */
export interface StreamReply {
  /** The items; `signal` aborts when the client leaves, so no more are made. */
  items(signal: AbortSignal): AsyncIterable<StreamItem>;
  ignoredParams?: string;
}

/**
 * An answer that stays open: Server-Sent Events. The writer sends the headers, then
 * hands the response to `events`, which writes the events from then on.
 */
export interface EventStreamReply {
  events(res: ServerResponse): void;
  ignoredParams?: string;
}

export type Answer = Reply | StreamReply;

export function isStream(answer: Answer | EventStreamReply): answer is StreamReply {
  return 'items' in answer;
}

function isEventStream(answer: Answer | EventStreamReply): answer is EventStreamReply {
  return 'events' in answer;
}

function callCountHeaders(counts: CallCounts, cache: CacheFact | undefined, ignoredParams: string | undefined): string[] {
  const headers = ['X-Rpc-Calls', String(counts.rpcCalls), 'X-Rpc-Waves', String(counts.waves)];
  if (cache) {
    counts.cache = cache;
    headers.push('X-Cache', cache);
  }
  if (ignoredParams) headers.push('X-Ignored-Params', ignoredParams);
  return headers;
}

function clientHas(req: IncomingMessage, etag: string): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  return ifNoneMatch?.split(/\s*,\s*/).includes(etag) ?? false;
}

/**
 * Writes `reply` and says the status sent: at once when nothing is to be compressed (a warm
 * answer sent as kept costs no promise), once compressed otherwise.
 */
export function sendReply(req: IncomingMessage, res: ServerResponse, reply: Reply, counts: CallCounts): number | Promise<number> {
  const { etag } = reply;
  const tail = callCountHeaders(counts, reply.cache, reply.ignoredParams);
  if (etag && clientHas(req, etag)) {
    res.writeHead(304, ['Cache-Control', IMMUTABLE, 'ETag', etag, ...tail]).end();
    return 304;
  }
  const plain = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  const encoding = plain.length >= (reply.encoded ? MIN_COMPRESS_BYTES : MIN_COMPRESS_ONCE_BYTES) ? pickEncoding(req.headers['accept-encoding']) : undefined;
  if (!encoding) return writeBody(res, reply, plain, plain, undefined, tail);
  return (reply.encoded?.(encoding) ?? compress(plain, encoding)).then((body) => writeBody(res, reply, plain, body, encoding, tail));
}

function writeBody(res: ServerResponse, reply: Reply, plain: Buffer, body: Buffer, encoding: Encoding | undefined, tail: string[]): number {
  const status = reply.status ?? 200;
  const { etag } = reply;
  const headers = ['Content-Type', reply.contentType ?? JSON_TYPE, 'Cache-Control', etag ? IMMUTABLE : (reply.cacheControl ?? 'no-store')];
  if (etag) headers.push('ETag', etag);
  headers.push('Content-Length', String(body.length));
  // Whether or not this one is compressed, the same URL's answer may be (once kept warm).
  if (plain.length >= MIN_COMPRESS_BYTES) headers.push('Vary', 'Accept-Encoding');
  if (encoding) headers.push('Content-Encoding', encoding);
  if (reply.retryAfterSeconds !== undefined) headers.push('Retry-After', String(reply.retryAfterSeconds));
  for (const item of tail) headers.push(item);
  res.writeHead(status, headers).end(body);
  return status;
}

class ClientGoneError extends Error {}

/** Resolves when `stream` can take more; rejects if the client leaves first. */
function drained(stream: Writable, res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const onClose = () => reject(new ClientGoneError());
    res.once('close', onClose);
    stream.once('drain', () => {
      res.off('close', onClose);
      resolve();
    });
  });
}

/**
 * Streams a JSON array whose items are produced one after another, never holding
 * them all. The first item is awaited before anything is written, so an early
 * failure (a node outage) still gets its own status; a failure after that cuts the
 * connection, so no client can take a cut-off array for a whole one.
 */
async function sendStream(req: IncomingMessage, res: ServerResponse, reply: StreamReply, counts: CallCounts): Promise<void> {
  const stop = new AbortController();
  res.once('close', () => stop.abort());
  const iterator = reply.items(stop.signal)[Symbol.asyncIterator]();
  let item = await iterator.next();
  const encoding = pickEncoding(req.headers['accept-encoding']);
  // The counts in the headers leave with the first item; the whole answer's follow it as trailers.
  const headers = ['Content-Type', JSON_TYPE, 'Cache-Control', 'no-store', 'Vary', 'Accept-Encoding', 'Trailer', 'X-Rpc-Calls, X-Rpc-Waves'];
  if (encoding) headers.push('Content-Encoding', encoding);
  res.writeHead(200, [...headers, ...callCountHeaders(counts, item.done ? undefined : item.value.cache, reply.ignoredParams)]);
  let out: Writable = res;
  if (encoding) {
    const compressing = compressor(encoding);
    compressing.pipe(res);
    out = compressing;
  }
  const write = async (text: string) => {
    if (stop.signal.aborted) throw new ClientGoneError();
    if (!out.write(text)) await drained(out, res);
  };
  try {
    await write('[');
    let first = true;
    while (!item.done) {
      await write(first ? item.value.json : `,${item.value.json}`);
      first = false;
      item = await iterator.next();
    }
    await write(']');
    res.addTrailers({ 'X-Rpc-Calls': String(counts.rpcCalls), 'X-Rpc-Waves': String(counts.waves) });
    out.end();
  } catch (error) {
    if (out !== res) out.destroy();
    res.destroy();
    await iterator.return?.(undefined).catch(() => undefined);
    if (!(error instanceof ClientGoneError)) throw error;
  }
}

function sendEventStream(res: ServerResponse, reply: EventStreamReply, counts: CallCounts): void {
  res.writeHead(200, [
    'Content-Type',
    'text/event-stream; charset=utf-8',
    'Cache-Control',
    'no-store',
    // nginx (and balancers that follow it) pass the stream on as it comes instead of buffering it.
    'X-Accel-Buffering',
    'no',
    ...callCountHeaders(counts, undefined, reply.ignoredParams),
  ]);
  res.socket?.setNoDelay(true);
  reply.events(res);
}

const STATS = Symbol('requestStats');
type WithStats = ServerResponse & { [STATS]?: RequestStats };

function callCountsOf(res: ServerResponse): CallCounts {
  return (res as WithStats)[STATS] ?? { rpcCalls: 0, waves: 0 };
}

/** Where a request's node calls are counted (the app keeps them with its response). */
export function statsOf(res: ServerResponse): RequestStats {
  const withStats = res as WithStats;
  withStats[STATS] ??= newRequestStats();
  return withStats[STATS];
}

/** Sends an answer to a request whose node calls the app counts. */
export async function respond(req: IncomingMessage, res: ServerResponse, answer: Answer | EventStreamReply): Promise<void> {
  if (isStream(answer)) await sendStream(req, res, answer, callCountsOf(res));
  else if (isEventStream(answer)) sendEventStream(res, answer, callCountsOf(res));
  else await sendReply(req, res, answer, callCountsOf(res));
}
