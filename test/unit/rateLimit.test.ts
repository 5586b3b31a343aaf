import type { IncomingMessage } from 'node:http';

import { clientAddress, RateLimiter } from '../../src/http/rateLimit';

describe('RateLimiter', () => {
  const limiter = new RateLimiter(4);
  afterAll(() => limiter.close());

  it('allows a burst of one second of requests, then says how long to wait', () => {
    const grants = Array.from({ length: 6 }, () => limiter.take('a', 1000));
    expect(grants).toEqual([0, 0, 0, 0, 1, 1]);
    expect(limiter.rejected).toBe(2);
    expect(limiter.take('b', 1000)).toBe(0);
  });

  it('refills at the configured rate', () => {
    expect(limiter.take('a', 1100)).toBe(1); // 0.4 of a token
    expect(limiter.take('a', 1250)).toBe(0); // 1.0
    expect(limiter.take('a', 1260)).toBe(1);
    expect(limiter.take('a', 3000)).toBe(0);
  });

  it('forgets clients idle long enough to be full again', () => {
    limiter.take('c', 5000);
    limiter.sweep(5500);
    expect(limiter.clients).toBeGreaterThanOrEqual(1);
    limiter.sweep(6000);
    expect(limiter.clients).toBe(0);
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
