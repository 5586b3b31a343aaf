// The JSON body of a POST route, read by fastcar itself rather than by an Express
// parser (the binder's direct path never meets Express's middleware, and both paths
// must read a body the same way). Its size is bounded before a byte is parsed; a
// body that comes slowly is cut by the server's request timeout (http/listen.ts:
// Node's `requestTimeout` counts until the whole body has arrived), and a client
// that leaves while sending ends the read, so no work starts for it.
import type { IncomingMessage, ServerResponse } from 'node:http';

import { ApiError, badRequest } from '../errors';

/**
 * The largest body taken, in bytes. The largest extrinsic a chain accepts is bounded by
 * its runtime's block length: the usual limit (Polkadot, Kusama, their system chains) is
 * 5 MiB per block, of which 75 % (3.75 MiB) is left to normal transactions. Sent as hex,
 * such an extrinsic is twice that, 7.5 MiB; 8 MiB takes it in its JSON envelope (a runtime
 * upgrade's code included) and nothing much larger. Sidecar's own limit is 100 kB.
 */
export const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;

/** The client left before its body had all arrived: nobody is left to answer. */
export class BodyAbandonedError extends Error {}

function isJsonType(header: string | undefined): boolean {
  const media = (header ?? '').split(';')[0].trim().toLowerCase();
  return media === 'application/json';
}

function tooLarge(res: ServerResponse): ApiError {
  // The rest of the body is not read: the connection ends with the answer instead of draining it.
  if (!res.headersSent) res.setHeader('Connection', 'close');
  return new ApiError(413, `The request body is larger than ${MAX_JSON_BODY_BYTES} bytes, the most fastcar takes.`);
}

/** The bytes of the body, at most `limit` of them; rejects as soon as more are announced or arrive. */
function readBytes(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  const announced = Number(req.headers['content-length']);
  if (Number.isFinite(announced) && announced > limit) return Promise.reject(tooLarge(res));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Error) => {
      req.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(res));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onClose = () => finish(new BodyAbandonedError('the client left while sending its body'));
    req.on('data', onData).once('end', onEnd).once('close', onClose).once('error', onClose);
  });
}

/** The request's body as parsed JSON: 415 unless sent as JSON, 413 when too large, 400 when not JSON. */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse, limit = MAX_JSON_BODY_BYTES): Promise<unknown> {
  if (!isJsonType(req.headers['content-type'])) {
    throw new ApiError(415, 'Send the body as JSON, with the header Content-Type: application/json.');
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  // A compressed body's size says nothing of what it inflates to: only plain bodies are taken.
  if (encoding !== 'identity') throw new ApiError(415, `Send the body uncompressed: Content-Encoding ${encoding.slice(0, 40)} is not accepted.`);
  const bytes = await readBytes(req, res, limit);
  if (bytes.length === 0) throw badRequest('The request body is empty: a JSON object was expected.');
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
}
