// Answers on their way out. An answer is a list of JSON text pieces (a cached
// result is one piece, shared with the cache, never copied into a bigger
// string) and is written a chunk at a time, each chunk only once the one
// before has been taken by the socket: what waits in memory for a client is
// bounded however big its answer and however slowly it reads. A WebSocket
// answer bigger than a chunk goes out as one fragmented message.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/** Characters per chunk written to a socket. */
export const CHUNK_CHARS = 64 * 1024;

/** One JSON text in pieces, with its size in UTF-8 bytes. */
export class Outgoing {
  readonly parts: string[] = [];
  bytes = 0;

  static of(text: string): Outgoing {
    return new Outgoing().push(text);
  }

  push(text: string, bytes = Buffer.byteLength(text)): this {
    this.parts.push(text);
    this.bytes += bytes;
    return this;
  }

  append(other: Outgoing): this {
    for (const part of other.parts) this.parts.push(part);
    this.bytes += other.bytes;
    return this;
  }

  /** The whole text (for tests and small answers). */
  text(): string {
    return this.parts.join('');
  }

  /** The text in chunks of about CHUNK_CHARS: small pieces joined, big ones cut (never inside a surrogate pair). */
  *chunks(size = CHUNK_CHARS): Generator<string> {
    let gathered: string[] = [];
    let gatheredLength = 0;
    for (const part of this.parts) {
      if (part.length <= size - gatheredLength) {
        gathered.push(part);
        gatheredLength += part.length;
        continue;
      }
      if (gatheredLength > 0) {
        yield gathered.join('');
        gathered = [];
        gatheredLength = 0;
      }
      let at = 0;
      while (part.length - at > size) {
        let end = at + size;
        const last = part.charCodeAt(end - 1);
        if (last >= 0xd800 && last <= 0xdbff) end -= 1; // keep a surrogate pair together
        yield part.slice(at, end);
        at = end;
      }
      gathered.push(at === 0 ? part : part.slice(at));
      gatheredLength = part.length - at;
    }
    if (gatheredLength > 0 || this.parts.length > 0) yield gathered.join('');
  }
}

export interface WriterOptions {
  /** Bytes handed to the socket and not yet flushed before the writer waits. */
  highWaterBytes: number;
  /** The connection under the WebSocket: corked while a turn's messages are handed over, so that they leave in one write. */
  tcp?: Socket;
  /** Called when `pending` may have changed. */
  onChange: () => void;
}

/**
 * Writes one WebSocket's messages in order. `pending` is what waits to go out
 * (queued or handed to the socket and not flushed); `stalledFor` is how long
 * nothing has been flushed while something waits.
 */
export class WebSocketWriter {
  private readonly messages: { chunks: Generator<string>; bytes: number }[] = [];
  /** The message being written and its next chunk (looked ahead to know which chunk is the last). */
  private current?: { chunks: Generator<string>; next: IteratorResult<string> };
  private queuedBytes = 0;
  private unflushed = 0;
  private lastProgress = Date.now();
  private corked = false;
  /** Bytes of each write handed to the socket, in order: ws calls back for its writes in the order they were made. */
  private readonly written: number[] = [];
  private readonly flushed = () => {
    this.unflushed -= this.written.shift() ?? 0;
    this.lastProgress = Date.now();
    this.pump();
    this.options.onChange();
  };

  constructor(
    private readonly socket: WebSocket,
    private readonly options: WriterOptions,
  ) {
    // Small answers are written without a callback each (it cost a fifth of a cached call's CPU): the connection's
    // buffer says what of them is not flushed, and its drain that they left.
    options.tcp?.on('drain', () => {
      this.lastProgress = Date.now();
      this.options.onChange();
    });
  }

  get pending(): number {
    // Bytes written with a callback are in the socket's buffer too until flushed: the larger of the two counts.
    return this.queuedBytes + Math.max(this.unflushed, this.socket.bufferedAmount);
  }

  stalledFor(now: number): number {
    return this.pending > 0 ? now - this.lastProgress : 0;
  }

  send(message: Outgoing): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.pending === 0) this.lastProgress = Date.now();
    // Most answers are one chunk with nothing queued ahead of them: written at once, whole, no chunking.
    if (message.bytes <= CHUNK_CHARS && this.current === undefined && this.messages.length === 0 && this.pending < this.options.highWaterBytes) {
      this.cork();
      this.socket.send(message.parts.length === 1 ? message.parts[0] : message.parts.join(''));
      this.options.onChange();
      return;
    }
    this.messages.push({ chunks: message.chunks(), bytes: message.bytes });
    this.queuedBytes += message.bytes;
    this.pump();
    this.options.onChange();
  }

  private readonly uncork = () => {
    this.corked = false;
    this.options.tcp?.uncork();
  };

  private pump(): void {
    while (this.unflushed < this.options.highWaterBytes && this.socket.readyState === this.socket.OPEN) {
      if (!this.current) {
        const message = this.messages.shift();
        if (!message) return;
        this.current = { chunks: message.chunks, next: message.chunks.next() };
      }
      const { chunks, next } = this.current;
      if (next.done) {
        this.current = undefined;
        continue;
      }
      const following = chunks.next();
      const fin = following.done === true;
      if (fin) this.current = undefined;
      else this.current.next = following;
      const data = Buffer.from(next.value, 'utf8');
      this.queuedBytes -= data.length;
      this.write(data, data.length, fin);
    }
  }

  /** The connection under the WebSocket corked until the turn's writes are all in. */
  private cork(): void {
    if (this.corked || !this.options.tcp) return;
    this.corked = true;
    this.options.tcp.cork();
    process.nextTick(this.uncork);
  }

  /** Hands one frame of a chunked message to the socket, its flush counted when the socket calls back. */
  private write(data: Buffer, bytes: number, fin: boolean): void {
    this.cork();
    this.unflushed += bytes;
    this.written.push(bytes);
    this.socket.send(data, { binary: false, fin }, this.flushed);
  }
}

/**
 * Writes an answer to an HTTP response a chunk at a time, waiting for the
 * socket to take each; a client that takes nothing for `sendTimeoutMs` loses
 * its connection. Resolves when the answer is out or the connection gone.
 */
export async function writeHttpAnswer(
  res: ServerResponse,
  status: number,
  answer: Outgoing,
  sendTimeoutMs: number,
  headers: Record<string, string> = {},
): Promise<void> {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(answer.bytes), ...headers });
  for (const chunk of answer.chunks()) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await progress(res, 'drain', sendTimeoutMs);
  }
  if (res.destroyed) return;
  res.end();
  if (!res.writableFinished) await progress(res, 'finish', sendTimeoutMs);
}

/** Waits for `event` (or the response closing); destroys the response if neither comes in time. */
function progress(res: ServerResponse, event: 'drain' | 'finish', timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off(event, done);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(() => {
      res.destroy();
      done();
    }, timeoutMs);
    res.once(event, done);
    res.once('close', done);
  });
}
