// The limiter fastcar and the proxy share (src/limits), counting in process as it
// does without Redis (test/rateLimits.test.ts runs it over a real Redis), and how
// fastcar reads a client's address.
import type { IncomingMessage } from 'node:http';

import { clientAddress } from '../../src/http/rateLimit';
import { ClientLimits, retryAfterSeconds } from '../../src/limits/clientLimits';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ClientLimits in process', () => {
  it("allows a window's calls per address, then says how long to wait, and lets the address in again after the window", async () => {
    const limits = new ClientLimits('unit-window', { perClient: { calls: 4, windowSeconds: 1, burst: 0 }, perMethod: [], windowSeconds: 1 });
    const verdicts = [];
    for (let i = 0; i < 6; i++) verdicts.push(await limits.admitOne('a'));
    expect(verdicts.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
    expect(verdicts[4]).toEqual({ limit: 'client', retryAfterMs: expect.any(Number) });
    expect(verdicts[4]!.retryAfterMs).toBeGreaterThan(0);
    expect(verdicts[4]!.retryAfterMs).toBeLessThanOrEqual(1000);
    expect(limits.refused).toBe(2);
    expect(await limits.admitCalls('a', [])).toBeUndefined(); // no calls: nothing to refuse
    expect(await limits.admitOne('b')).toBeUndefined(); // another address has its own window
    await settle(verdicts[5]!.retryAfterMs + 20);
    expect(await limits.admitOne('a')).toBeUndefined();
  });

  it('lets an address go over its rate by its burst, once in the burst window', async () => {
    const limits = new ClientLimits('unit-burst', { perClient: { calls: 2, windowSeconds: 1, burst: 3 }, perMethod: [], windowSeconds: 1 });
    const admitted = async (count: number) => {
      let ok = 0;
      for (let i = 0; i < count; i++) if (!(await limits.admitOne('a'))) ok++;
      return ok;
    };
    expect(await admitted(10)).toBe(5); // 2 of the window, 3 of the burst
    await settle(1050);
    expect(await admitted(10)).toBe(2); // a new window; the burst is spent for ten
  });

  it('counts costly methods per address and method rule, apart from the rest, and a batch as its calls', async () => {
    const limits = new ClientLimits('unit-methods', {
      perClient: { calls: 100, windowSeconds: 1, burst: 0 },
      perMethod: [
        { pattern: 'state_call', calls: 2, burst: 0 },
        { pattern: 'archive_*', calls: 3, burst: 0 },
      ],
      windowSeconds: 1,
    });
    expect(await limits.admitCalls('a', ['state_call', 'state_call', 'system_chain'])).toBeUndefined();
    expect(await limits.admitCalls('a', ['state_call'])).toEqual({ limit: 'state_call', retryAfterMs: expect.any(Number) });
    // Every archive_ method shares the one rule.
    expect(await limits.admitCalls('a', ['archive_v1_body', 'archive_v1_storage', 'archive_v1_header'])).toBeUndefined();
    expect((await limits.admitCalls('a', ['archive_v1_call']))?.limit).toBe('archive_*');
    // Other methods, and other addresses, are not held back by them.
    expect(await limits.admitCalls('a', Array(20).fill('chain_getHeader'))).toBeUndefined();
    expect(await limits.admitCalls('b', ['state_call', 'archive_v1_body'])).toBeUndefined();
    expect(limits.refusals).toEqual(
      new Map([
        ['state_call', 1],
        ['archive_*', 1],
      ]),
    );
  });

  it('counts the calls of one turn together and settles them in arrival order, burst included', async () => {
    const limits = new ClientLimits('unit-turn', { perClient: { calls: 5, windowSeconds: 1, burst: 2 }, perMethod: [], windowSeconds: 1 });
    const sizes = [1, 1, 3, 1, 1, 1, 1];
    const verdicts = await Promise.all(sizes.map((size) => limits.admitCalls('a', Array(size).fill('system_chain'))));
    // 5 of the window and 2 of the burst: the first five messages (7 calls); then nothing, however small.
    expect(verdicts.map((verdict) => verdict === undefined)).toEqual([true, true, true, true, true, false, false]);
    expect(verdicts[5]!.retryAfterMs).toBeLessThanOrEqual(1000);
    const [big, small] = await Promise.all([limits.admitCalls('b', Array(4).fill('x')), limits.admitCalls('b', ['x'])]);
    expect([big, small]).toEqual([undefined, undefined]);
    const [over, after] = await Promise.all([limits.admitCalls('b', Array(4).fill('x')), limits.admitCalls('b', ['x'])]);
    // 4 more: 2 in the burst, not enough; the one after it waits its turn too.
    expect([over?.limit, after?.limit]).toEqual(['client', 'client']);
  });

  it("lets a batch larger than a window pass once, as a full window's worth", async () => {
    const limits = new ClientLimits('unit-batch', { perClient: { calls: 5, windowSeconds: 1, burst: 0 }, perMethod: [], windowSeconds: 1 });
    expect(await limits.admitCalls('a', Array(50).fill('system_chain'))).toBeUndefined();
    expect((await limits.admitCalls('a', ['system_chain']))?.limit).toBe('client');
  });

  it('lets an address known to be well under its window in at once, never past the window in a lone process', async () => {
    const limits = new ClientLimits('unit-at-once', { perClient: { calls: 100, windowSeconds: 2, burst: 0 }, perMethod: [], windowSeconds: 2 });
    // Nothing known of the address yet: it waits for the counter, which then says where its window stands.
    expect(limits.admitNow('a', 'system_chain')).toBe(false);
    expect(await limits.admitCalls('a', ['system_chain'])).toBeUndefined();
    let atOnce = 0;
    let waited = 0;
    // A flood, each turn a burst of calls: let in at once while a tenth of the window at most is unanswered, else waiting.
    for (let turn = 0; turn < 40; turn++) {
      const waiting: Promise<unknown>[] = [];
      for (let i = 0; i < 10; i++) {
        if (limits.admitNow('a', 'system_chain')) atOnce++;
        else waiting.push(limits.admitCalls('a', ['system_chain']).then((refused) => refused === undefined && waited++));
      }
      await Promise.all(waiting);
      await settle(6); // the background increments are sent within 5 ms
    }
    expect(atOnce).toBeGreaterThan(50);
    expect(1 + atOnce + waited).toBe(100); // exactly the window: this process knows every call counted
    expect(limits.admittedAtOnce).toBe(atOnce);
    expect(limits.admitNow('a', 'system_chain')).toBe(false); // over: it waits, and is refused
    expect((await limits.admitCalls('a', ['system_chain']))?.limit).toBe('client');
  });

  it('lets in at once only what every limit of the call knows to fit, and counts nothing when one does not', async () => {
    const limits = new ClientLimits('unit-at-once-methods', {
      perClient: { calls: 1000, windowSeconds: 2, burst: 0 },
      perMethod: [{ pattern: 'state_call', calls: 20, burst: 0 }],
      windowSeconds: 2,
    });
    expect(await limits.admitCalls('a', ['system_chain', 'state_call'])).toBeUndefined();
    expect(limits.admitNow('a', 'system_chain')).toBe(true);
    // state_call's window holds 20, a tenth of it (2) may be unanswered.
    expect([limits.admitNow('a', 'state_call'), limits.admitNow('a', 'state_call'), limits.admitNow('a', 'state_call')]).toEqual([true, true, false]);
    expect(limits.admittedAtOnce).toBe(3);
    await settle(10);
    expect(limits.admitNow('a', 'state_call')).toBe(true); // answered for: room again
  });

  it('admits everything when no limit is set', async () => {
    const limits = new ClientLimits('unit-none', { perMethod: [], windowSeconds: 1 });
    expect(await limits.admitCalls('a', Array(1000).fill('state_call'))).toBeUndefined();
  });

  it('rounds a wait up to whole seconds for Retry-After, never to 0', () => {
    expect([1, 999, 1000, 1001, 0].map(retryAfterSeconds)).toEqual([1, 1, 1, 2, 1]);
  });
});

describe('clientAddress', () => {
  const request = (forwarded?: string) =>
    ({ socket: { remoteAddress: '172.18.0.5' }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;

  it('is the peer when no proxy is trusted, whatever the client claims', () => {
    expect(clientAddress(request('203.0.113.7'), 0)).toBe('172.18.0.5');
  });

  it('is the entry written by the outermost trusted proxy, not one the client sent', () => {
    expect(clientAddress(request('6.6.6.6, 203.0.113.7'), 1)).toBe('203.0.113.7');
    expect(clientAddress(request('6.6.6.6, 203.0.113.7, 10.0.0.2'), 2)).toBe('203.0.113.7');
  });

  it('falls back to the peer when the header is missing or short', () => {
    expect(clientAddress(request(), 1)).toBe('172.18.0.5');
    expect(clientAddress(request('203.0.113.7'), 2)).toBe('172.18.0.5');
  });
});
