// A Server-Sent Events client for tests and benchmarks: reads a stream as it
// comes, keeps every event with the time it arrived, and can stop reading (a
// stalled client) without closing the connection.
import { request, type Agent, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  /** performance.timeOrigin + performance.now() when its last byte arrived. */
  at: number;
}

export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  events: SseEvent[];
  /** Comment lines seen (heartbeats). */
  comments: number;
  /** The body when the answer is not a stream (an error). */
  text(): Promise<string>;
  /** Resolves with the first event (from the start) that `match` accepts. */
  waitFor(match: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves once `count` events with an id have arrived; their list. */
  blocks(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Stops reading: what the server sends piles up in its buffers. */
  pause(): void;
  resume(): void;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** `keepData: false` keeps each event's id, name and time but not its data (benchmarks with many clients). */
export function openStream(url: string, headers: Record<string, string> = {}, agent?: Agent, { keepData = true } = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Accept: 'text/event-stream', ...headers }, agent }, (res: IncomingMessage) =>
      resolve(wrap(res, () => req.destroy(), keepData)),
    );
    req.once('error', reject);
    req.end();
  });
}

function wrap(res: IncomingMessage, destroy: () => void, keepData: boolean): SseStream {
  const events: SseEvent[] = [];
  let pending = '';
  let raw = '';
  const isStream = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
  const waiters = new Set<() => boolean>();
  /** Resolves once `condition` holds (checked as data comes), or fails after `timeoutMs`. */
  const until = (condition: () => boolean, timeoutMs: number, describe: () => string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!condition()) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(describe()));
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  let endedResolve!: () => void;
  const ended = new Promise<void>((resolve) => (endedResolve = resolve));
  const stream: SseStream = {
    status: res.statusCode ?? 0,
    headers: res.headers,
    events,
    comments: 0,
    text: async () => {
      await ended;
      return raw;
    },
    async waitFor(match, timeoutMs = 60_000) {
      await until(
        () => events.some(match),
        timeoutMs,
        () => `no matching event in ${timeoutMs} ms; got ${events.map((e) => e.id ?? e.event).join(',')}`,
      );
      return events.find(match)!;
    },
    async blocks(count, timeoutMs = 60_000) {
      const blocks = () => events.filter((event) => event.id !== undefined);
      await until(
        () => blocks().length >= count,
        timeoutMs,
        () =>
          `${blocks().length} of ${count} block events in ${timeoutMs} ms; got ids ${blocks()
            .map((e) => e.id)
            .join(',')}`,
      );
      return blocks().slice(0, count);
    },
    pause: () => res.pause(),
    resume: () => res.resume(),
    ended,
    close: destroy,
  };
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    if (!isStream) {
      raw += chunk;
      return;
    }
    pending += chunk;
    for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const event: SseEvent = { data: '', at: performance.timeOrigin + performance.now() };
      const data: string[] = [];
      let isEvent = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) stream.comments += 1;
        else if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) {
          if (keepData) data.push(line.slice(6));
          isEvent = true;
        }
      }
      if (!isEvent) continue;
      event.data = data.join('\n');
      events.push(event);
    }
    for (const check of [...waiters]) check();
  });
  res.once('close', () => endedResolve());
  res.once('error', () => endedResolve());
  return stream;
}
