// Reading a provider's Retry-After (src/rpc/retryPolicy.ts): seconds or an HTTP date,
// and never a pause long enough to stop the client for good.
import { retryAfterMs } from '../../src/rpc/retryPolicy';

const now = Date.parse('2026-11-24T10:00:00Z');

it.each([
  [{ 'retry-after': '1' }, 1000],
  [{ 'retry-after': ' 2.5 ' }, 2500],
  [{ 'retry-after': ['3', '9'] }, 3000],
  [{ 'retry-after': 'Tue, 24 Nov 2026 10:00:04 GMT' }, 4000],
  [{ 'retry-after': 'Tue, 24 Nov 2026 09:59:00 GMT' }, 0],
  [{ 'retry-after': '86400' }, 60_000],
  [{ 'retry-after': 'soon' }, undefined],
  [{ 'retry-after': '-1' }, undefined],
  [{}, undefined],
])('%p -> %p ms', (headers, expected) => {
  expect(retryAfterMs(headers, now)).toBe(expected);
});
