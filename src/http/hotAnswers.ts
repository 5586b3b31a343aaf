// Finalized block answers, kept as the bytes that go on the wire, with their
// headers, and answered before Express sees the request: no router, no
// middleware stack, no string building, no per-request compression. What a
// bare `http.createServer` does, plus the log line and the metric. The cache
// behind the service stays the source of truth; this holds only answers already
// sent once, under the one canonical spelling of their URL (others go through
// Express and are answered from the cache behind it), within a byte budget.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';

import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { arrivedAt } from './requestPacer';
import { compress, IMMUTABLE, MIN_COMPRESS_BYTES, pickEncoding, type Encoding } from './sendJson';

interface HotAnswer {
  body: Buffer;
  etag: string;
  /** Compressed copies, made the first time a client asks for one. */
  encoded: Partial<Record<Encoding, Buffer>>;
}

/** The route label the metrics give these answers, as Express would. */
const ROUTE = '/blocks/:blockId';

/** `/v1/...` answers as the same path without the prefix: one entry for both. */
function keyOf(url: string): string {
  return url.startsWith('/v1/') ? url.slice(3) : url;
}

export class HotAnswers {
  private readonly answers: LRUCache<string, HotAnswer>;

  constructor(maxBytes: number) {
    this.answers = new LRUCache({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (answer, url) => answer.body.length + url.length + (answer.encoded.br?.length ?? 0) + (answer.encoded.gzip?.length ?? 0),
    });
  }

  /** Keeps a finalized answer just sent, under its canonical URL (its bytes as sent, not copied). */
  remember(url: string, body: Buffer, etag: string): void {
    if (!this.answers.has(url)) this.answers.set(url, { body, etag, encoded: {} });
  }

  get entries(): number {
    return this.answers.size;
  }

  /** `next`, with the answers kept here served first. */
  listener(next: RequestListener, metrics: Metrics, logger: Logger): RequestListener {
    return (req, res) => {
      const answer = req.method === 'GET' && req.url ? this.answers.get(keyOf(req.url)) : undefined;
      if (!answer) return next(req, res);
      this.send(req, res, answer)
        .then((status) => this.account(req, status, metrics, logger))
        .catch(() => res.destroy());
    };
  }

  private async send(req: IncomingMessage, res: ServerResponse, answer: HotAnswer): Promise<number> {
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(/\s*,\s*/).includes(answer.etag)) {
      res.writeHead(304, ['Cache-Control', IMMUTABLE, 'ETag', answer.etag, 'X-Rpc-Calls', '0', 'X-Rpc-Waves', '0', 'X-Cache', 'hit']).end();
      return 304;
    }
    let body = answer.body;
    const encoding = body.length >= MIN_COMPRESS_BYTES ? pickEncoding(req.headers['accept-encoding']) : undefined;
    if (encoding) {
      const encoded = answer.encoded[encoding] ?? (answer.encoded[encoding] = await compress(body, encoding, 'kept'));
      body = encoded;
    }
    const headers = ['Content-Type', 'application/json; charset=utf-8', 'Cache-Control', IMMUTABLE, 'ETag', answer.etag, 'Content-Length', String(body.length)];
    if (answer.body.length >= MIN_COMPRESS_BYTES) headers.push('Vary', 'Accept-Encoding');
    if (encoding) headers.push('Content-Encoding', encoding);
    headers.push('X-Rpc-Calls', '0', 'X-Rpc-Waves', '0', 'X-Cache', 'hit');
    res.writeHead(200, headers).end(body);
    return 200;
  }

  private account(req: IncomingMessage, status: number, metrics: Metrics, logger: Logger): void {
    const ms = Number(process.hrtime.bigint() - arrivedAt(req)) / 1e6;
    metrics.requests.observe({ route: ROUTE, status: String(status) }, ms / 1000);
    if (logger.isLevelEnabled('info')) {
      logger.info({ method: 'GET', url: req.url?.slice(0, 300), status, ms: Math.round(ms * 10) / 10, rpcCalls: 0, waves: 0, cache: 'hit' }, 'request');
    }
  }
}
