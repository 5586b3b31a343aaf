// Immutable values (finalized block responses, finalized number -> hash) in
// a byte-bounded in-process LRU, optionally backed by Redis shared between
// instances. Callers decide what is immutable; this layer only stores.
import { LRUCache } from 'lru-cache';

import type { RedisStore } from './redisStore';

export interface CacheCounters {
  hits: number;
  misses: number;
  redisHits: number;
  redisErrors: number;
}

export class TieredCache {
  private readonly lru: LRUCache<string, string>;
  readonly counters: CacheCounters = { hits: 0, misses: 0, redisHits: 0, redisErrors: 0 };

  constructor(
    private readonly maxBytes: number,
    private readonly redis?: RedisStore,
  ) {
    this.lru = new LRUCache<string, string>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (value, key) => Buffer.byteLength(value) + key.length,
    });
  }

  get bytes(): number {
    return this.lru.calculatedSize ?? 0;
  }

  get entries(): number {
    return this.lru.size;
  }

  async get(key: string): Promise<string | undefined> {
    const local = this.lru.get(key);
    if (local !== undefined) {
      this.counters.hits += 1;
      return local;
    }
    if (this.redis) {
      const shared = await this.redis.get(key).catch(() => {
        this.counters.redisErrors += 1;
        return undefined;
      });
      if (shared !== undefined) {
        this.counters.hits += 1;
        this.counters.redisHits += 1;
        this.lru.set(key, shared);
        return shared;
      }
    }
    this.counters.misses += 1;
    return undefined;
  }

  /**
   * Whether a value of `length` characters could be kept at all: lets a caller skip
   * writing a value out for a cache that would refuse it (a big block beside a small
   * or disabled in-process cache, and no Redis).
   */
  canKeep(length: number): boolean {
    return this.redis !== undefined || length <= this.maxBytes;
  }

  set(key: string, value: string): void {
    this.lru.set(key, value);
    this.redis?.set(key, value).catch(() => {
      this.counters.redisErrors += 1;
    });
  }

  /** As set, settling once Redis has the value (or has failed to take it): for a writer that then tells others to read it. */
  async setShared(key: string, value: string): Promise<void> {
    this.lru.set(key, value);
    await this.redis?.set(key, value).catch(() => {
      this.counters.redisErrors += 1;
    });
  }
}
