import { RedisStore } from '../../src/cache/redisStore';
import { TieredCache } from '../../src/cache/tieredCache';
import { freePort } from '../../harness/processes';

describe('TieredCache', () => {
  it('stays within its byte bound by evicting the least recently used', async () => {
    const cache = new TieredCache(1000);
    for (let i = 0; i < 20; i++) cache.set(`k${i}`, 'x'.repeat(100));
    expect(cache.bytes).toBeLessThanOrEqual(1000);
    expect(await cache.get('k0')).toBeUndefined();
    expect(await cache.get('k19')).toBe('x'.repeat(100));
    expect(cache.counters).toMatchObject({ hits: 1, misses: 1 });
  });

  it('counts multi-byte characters as bytes, not characters', () => {
    const cache = new TieredCache(10_000);
    cache.set('k', 'é'.repeat(100));
    expect(cache.bytes).toBe(201);
  });

  it('says a value too long for it cannot be kept, and never one it would keep', async () => {
    const cache = new TieredCache(1000);
    expect(cache.canKeep(1001)).toBe(false);
    cache.set('long', 'x'.repeat(1001));
    expect(await cache.get('long')).toBeUndefined();
    expect(cache.canKeep(990)).toBe(true);
    cache.set('fits', 'x'.repeat(990));
    expect(await cache.get('fits')).toBe('x'.repeat(990));
    // The in-process cache off (FASTCAR_CACHE_MAX_BYTES=1): nothing worth writing out.
    expect(new TieredCache(1).canKeep(2)).toBe(false);
  });

  it('keeps what the in-process cache cannot hold when Redis is there to share it', async () => {
    const redis = new RedisStore(`redis://127.0.0.1:${await freePort()}`, 'test:', 60);
    expect(new TieredCache(1, redis).canKeep(1_000_000)).toBe(true);
    await redis.close();
  });

  it('answers misses, not errors, when Redis is unreachable', async () => {
    const port = await freePort(); // nothing listens here
    const redis = new RedisStore(`redis://127.0.0.1:${port}`, 'test:', 60);
    const cache = new TieredCache(1000, redis);
    cache.set('a', 'value'); // must not throw
    expect(await cache.get('a')).toBe('value');
    expect(await cache.get('b')).toBeUndefined();
    await redis.close();
  });
});
