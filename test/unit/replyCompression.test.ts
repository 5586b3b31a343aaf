// Which answers the reply writer compresses: one made for a single response only when it
// is too big for one flight of TCP segments; one kept for reuse from a kilobyte. Served by
// a real HTTP server and read by a real client.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

import { compress, MIN_COMPRESS_BYTES, MIN_COMPRESS_ONCE_BYTES } from '../../src/http/compression';
import { sendReply, type Reply } from '../../src/http/reply';

/** A JSON body of exactly `bytes` bytes. */
const bodyOf = (bytes: number) => Buffer.from(JSON.stringify({ data: 'x'.repeat(bytes - '{"data":""}'.length) }));

let server: Server;
let url: string;
let next: Reply;

beforeAll(async () => {
  server = createServer((req, res) => void sendReply(req, res, next, { rpcCalls: 0, waves: 0 }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function ask(reply: Reply, acceptEncoding = 'gzip') {
  next = reply;
  // node:http's client does not decode: the bytes as sent.
  return new Promise<{ encoding?: string; vary?: string; body: Buffer }>((resolve, reject) => {
    request(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('reply compression', () => {
  it('sends a one-off answer smaller than one flight as it is, saying it may vary', async () => {
    const plain = bodyOf(MIN_COMPRESS_ONCE_BYTES - 100);
    const answer = await ask({ body: plain });
    expect(answer.encoding).toBeUndefined();
    expect(answer.vary).toBe('Accept-Encoding');
    expect(answer.body.equals(plain)).toBe(true);
  });

  it('compresses a one-off answer past one flight', async () => {
    const plain = bodyOf(MIN_COMPRESS_ONCE_BYTES + 100);
    const answer = await ask({ body: plain });
    expect(answer.encoding).toBe('gzip');
    expect(gunzipSync(answer.body).equals(plain)).toBe(true);
  });

  it('sends a kept answer in its kept compressed form from a kilobyte', async () => {
    const plain = bodyOf(MIN_COMPRESS_BYTES + 100);
    let made = 0;
    const encoded = async () => {
      made++;
      return compress(plain, 'gzip', 'kept');
    };
    const answer = await ask({ body: plain, encoded });
    expect(answer.encoding).toBe('gzip');
    expect(made).toBe(1);
    expect(gunzipSync(answer.body).equals(plain)).toBe(true);
  });

  it('never compresses for a client that does not ask', async () => {
    const plain = bodyOf(MIN_COMPRESS_ONCE_BYTES + 100);
    const answer = await ask({ body: plain }, 'identity');
    expect(answer.encoding).toBeUndefined();
    expect(answer.body.equals(plain)).toBe(true);
  });
});
