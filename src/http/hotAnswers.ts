// Finalized block answers, kept as the bytes that go on the wire, and answered
// first (routeBinder.ts): no routing, no string building, no per-request
// compression. What a bare `http.createServer` does, plus the log line and the
// metric. The cache behind the service stays the source of truth; this holds only
// answers already sent once, under the one canonical spelling of their URL (others
// are routed and answered from the cache behind it), within a byte budget. They are written by the same writer
// as every other answer (reply.ts).
import { LRUCache } from 'lru-cache';

import type { Encoding } from './compression';
import { compress } from './compression';
import type { Reply } from './reply';
import type { WarmAnswers } from './routeBinder';

/** A kept answer: its bytes as first sent, its ETag, and its compressed forms once made. */
interface HotAnswer extends Reply {
  body: Buffer;
  etag: string;
  forms: Partial<Record<Encoding, Buffer>>;
}

/** `/v1/...` answers as the same path without the prefix: one entry for both. */
function keyOf(url: string): string {
  return url.startsWith('/v1/') ? url.slice(3) : url;
}

function sizeOf(answer: HotAnswer, key: string): number {
  return answer.body.length + key.length + (answer.forms.br?.length ?? 0) + (answer.forms.gzip?.length ?? 0);
}

export class HotAnswers implements WarmAnswers {
  private readonly answers: LRUCache<string, HotAnswer>;

  constructor(maxBytes: number) {
    this.answers = new LRUCache({ maxSize: Math.max(1, maxBytes), sizeCalculation: sizeOf });
  }

  /** Keeps a finalized answer just sent, under its canonical URL (its bytes as sent, not copied). */
  remember(reply: Reply): void {
    const { hotKey, etag } = reply;
    if (hotKey === undefined || etag === undefined || this.answers.has(hotKey)) return;
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    const answer: HotAnswer = {
      body,
      etag,
      cache: 'hit',
      forms: {},
      // Compressed once, harder than a one-off answer is, and counted in the budget once made.
      encoded: async (encoding) => {
        const known = answer.forms[encoding];
        if (known) return known;
        const made = await compress(body, encoding, 'kept');
        answer.forms[encoding] = made;
        // Set again (as a new value: the same one is not re-measured) so the budget counts it.
        if (this.answers.peek(hotKey)?.forms === answer.forms) this.answers.set(hotKey, { ...answer });
        return made;
      },
    };
    this.answers.set(hotKey, answer);
  }

  get entries(): number {
    return this.answers.size;
  }

  /** The answer kept for `url` (`/v1/...` as the same path without it). */
  lookup(url: string): Reply | undefined {
    return this.answers.get(keyOf(url));
  }
}
