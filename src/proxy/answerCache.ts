// The proxy's cache of answers that cannot change, kept as the JSON text of
// their result: a hit is spliced into the response as it is, never parsed.
// Its byte cap is what the entries really cost in memory: both strings as V8
// holds them (one byte a character for ASCII text, two otherwise) and what
// the map, the LRU's lists and the entry itself take (measured with V8's heap
// after a full GC: 170-175 bytes an entry; test/proxyResourceLimits.test.ts checks
// the heap of a filled cache against its cap).
import { LRUCache } from 'lru-cache';

/** A result's JSON text and its length in UTF-8 bytes (what it costs on the wire). */
export interface ResultText {
  readonly text: string;
  readonly bytes: number;
}

export function resultText(value: unknown): ResultText {
  const text = JSON.stringify(value) ?? 'null';
  return { text, bytes: Buffer.byteLength(text) };
}

/** What one entry costs beyond its two strings' characters: string headers, the key's rope, map slot, LRU lists, the entry object. */
export const ENTRY_OVERHEAD_BYTES = 200;

/** Bytes V8 holds for a string of this text: one a character when it is ASCII (utf8Bytes === length), else two. */
function stringCost(length: number, utf8Bytes: number): number {
  return utf8Bytes === length ? length : 2 * length;
}

export function entryCost(key: string, value: ResultText): number {
  return stringCost(key.length, Buffer.byteLength(key)) + stringCost(value.text.length, value.bytes) + ENTRY_OVERHEAD_BYTES;
}

export class AnswerCache {
  private readonly entries: LRUCache<string, ResultText>;

  constructor(readonly maxBytes: number) {
    this.entries = new LRUCache<string, ResultText>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (value, key) => entryCost(key, value) });
  }

  /** A cache with another bound holding these entries, the most recently used first to stay when it is smaller. */
  resized(maxBytes: number): AnswerCache {
    const next = new AnswerCache(maxBytes);
    if (maxBytes > 0) for (const [key, value] of this.entries.rentries() as Iterable<[string, ResultText]>) next.set(key, value);
    return next;
  }

  clear(): void {
    this.entries.clear();
  }

  get(key: string): ResultText | undefined {
    return this.entries.get(key);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  set(key: string, value: ResultText): void {
    this.entries.set(key, value);
  }

  /** The memory the entries are counted as taking. */
  get bytes(): number {
    return this.entries.calculatedSize ?? 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
