// A reload's new cache bound: the entries used last stay, the rest go.
import { AnswerCache, entryCost, resultText } from '../../src/proxy/answerCache';

it('keeps the most recently used entries when a reload makes the cache smaller, and all of them when it grows', () => {
  const value = resultText(`0x${'ab'.repeat(100)}`);
  const cost = entryCost('key-a', value);
  const cache = new AnswerCache(3 * cost);
  for (const key of ['key-a', 'key-b', 'key-c']) cache.set(key, value);
  cache.get('key-a'); // used last now
  const smaller = cache.resized(2 * cost);
  expect([smaller.has('key-a'), smaller.has('key-b'), smaller.has('key-c')]).toEqual([true, false, true]);
  expect(smaller.bytes).toBeLessThanOrEqual(2 * cost);
  const larger = smaller.resized(10 * cost);
  expect(larger.size).toBe(2);
  expect(larger.maxBytes).toBe(10 * cost);
  expect(cache.resized(0).size).toBe(0);
});
