// Server-Sent Events on the wire: how events are framed, and a stream over one
// HTTP response. An event's bytes are made once and written as they are to every
// stream that gets it (Node queues the same buffer for each socket, no copies).
import type { ServerResponse } from 'node:http';

import type { StreamFrames, StreamSink } from '../services/follow/blockStream';

/** How long a client that does not take the final event may keep its connection. */
const FINISH_GRACE_MS = 30_000;
/** What EventSource waits before reconnecting after the stream ends (it then sends Last-Event-ID). */
const RETRY_MS = 2000;

/** One event: `id` and `event` lines when given, then the data. The data must be one line (JSON is). */
function frame(data: string, id?: number, event?: string): Buffer {
  const head = `${id === undefined ? '' : `id: ${id}\n`}${event ? `event: ${event}\n` : ''}data: `;
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(head) + Buffer.byteLength(data) + 2);
  let at = bytes.write(head, 0, 'latin1');
  at += bytes.write(data, at);
  bytes.write('\n\n', at, 'latin1');
  return bytes;
}

export const sseFrames: StreamFrames = {
  block: (height, data) => frame(data, height),
  notice: (name, payload) => frame(JSON.stringify(payload), undefined, name),
  heartbeat: Buffer.from(':\n\n'),
};

/** A stream over an HTTP response whose headers the reply writer sent (http/reply.ts); `open` sends the first lines. */
export class SseSink implements StreamSink {
  constructor(private readonly res: ServerResponse) {}

  open(start: number): void {
    this.res.write(`retry: ${RETRY_MS}\n: finalized blocks from ${start}\n\n`);
  }

  get buffered(): number {
    return this.res.writableLength;
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  send(bytes: Buffer): void {
    if (!this.closed) this.res.write(bytes);
  }

  drained(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.res.writableLength === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const settle = (drained: boolean) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(drained);
      };
      const onDrain = () => settle(true);
      const onClose = () => settle(false);
      const timer = setTimeout(() => settle(false), ms);
      this.res.on('drain', onDrain);
      this.res.on('close', onClose);
    });
  }

  finish(last: Buffer): void {
    if (this.closed) return;
    this.res.end(last);
    // A client that reads nothing would keep the bytes queued for it: cut it after a grace.
    const cut = setTimeout(() => this.res.destroy(), FINISH_GRACE_MS);
    cut.unref();
    this.res.once('close', () => clearTimeout(cut));
  }

  onClose(listener: () => void): void {
    this.res.once('close', listener);
  }
}
