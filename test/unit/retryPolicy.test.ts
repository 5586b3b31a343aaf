// When a call to a node is sent again (src/rpc/retryPolicy.ts), with no socket and no
// timer: a "slow down" until the deadline, failures of the server or the connection
// twice, a refused batch always, anything else never; one back-off honouring Retry-After.
import { backoffMs, countsAsFailure, mayRetry, type Attempted } from '../../src/rpc/retryPolicy';

const now = 1_000_000;
const call = (failures: number, options: Partial<Attempted> = {}): Attempted => ({ failures, idempotent: true, deadline: now + 10_000, ...options });

describe('which failures are retried, and how often', () => {
  it('throttled: however many times, while the resend falls before the deadline, and never a submission', () => {
    expect(mayRetry('throttled', call(50), now + 9_999)).toBe(true);
    expect(mayRetry('throttled', call(1), now + 10_000)).toBe(false);
    expect(mayRetry('throttled', call(1, { idempotent: false }), now)).toBe(false);
  });

  it('an error page: twice, if the back-off ends before the deadline, and never a submission', () => {
    expect(mayRetry('serverError', call(1), now + backoffMs(1))).toBe(true);
    expect(mayRetry('serverError', call(2), now + backoffMs(2))).toBe(true);
    expect(mayRetry('serverError', call(3), now + backoffMs(3))).toBe(false);
    expect(mayRetry('serverError', call(1, { deadline: now + 250 }), now + backoffMs(1))).toBe(false);
    expect(mayRetry('serverError', call(1, { idempotent: false }), now)).toBe(false);
  });

  it('a stale kept-alive connection: twice, whatever the deadline, never a submission', () => {
    expect(mayRetry('staleConnection', call(2, { deadline: now }), now)).toBe(true);
    expect(mayRetry('staleConnection', call(3), now)).toBe(false);
    expect(mayRetry('staleConnection', call(1, { idempotent: false }), now)).toBe(false);
  });

  it('a call a batch left unanswered: twice, on its own, never a submission (the server may have run it)', () => {
    expect(mayRetry('unansweredInBatch', call(2), now)).toBe(true);
    expect(mayRetry('unansweredInBatch', call(3), now)).toBe(false);
    expect(mayRetry('unansweredInBatch', call(1, { idempotent: false }), now)).toBe(false);
  });

  it('a refused batch: always (in smaller POSTs), and not counted against its calls', () => {
    expect(mayRetry('batchRefused', call(99, { idempotent: false, deadline: 0 }), now)).toBe(true);
    expect(countsAsFailure('batchRefused')).toBe(false);
  });

  it('anything else: never', () => {
    expect(mayRetry('fatal', call(0), now)).toBe(false);
    expect(countsAsFailure('fatal')).toBe(false);
    expect(['throttled', 'serverError', 'staleConnection', 'unansweredInBatch'].every((kind) => countsAsFailure(kind as never))).toBe(true);
  });
});

describe('the back-off', () => {
  it('is the Retry-After when the server gave one, at most 60 s', () => {
    expect(backoffMs(1, 1500)).toBe(1500);
    expect(backoffMs(5, 0)).toBe(0);
    expect(backoffMs(1, 3_600_000)).toBe(60_000);
  });

  it('is otherwise 250 ms doubling per failure, at most 8 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((failures) => backoffMs(failures))).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('capped elsewhere where told (the proxy backs a failing node off up to 10 s)', () => {
    expect([1, 6, 7, 8].map((failures) => backoffMs(failures, undefined, undefined, 10_000))).toEqual([250, 8000, 10_000, 10_000]);
  });

  it('spread over 75-125 % when given a random source, but never beyond a Retry-After', () => {
    expect(backoffMs(3, undefined, () => 0)).toBe(750);
    expect(backoffMs(3, undefined, () => 0.5)).toBe(1000);
    expect(backoffMs(3, undefined, () => 1)).toBe(1250);
    expect(backoffMs(10, undefined, () => 1)).toBe(10_000);
    expect(backoffMs(3, 2000, () => 1)).toBe(2000);
  });
});
