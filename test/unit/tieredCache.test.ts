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
