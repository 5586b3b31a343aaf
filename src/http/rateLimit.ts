// The per-client rate limit at fastcar's door: each request counts against its
// client address (src/limits: in Redis when REDIS_URL is set, so that every
// replica and worker counts a client once), checked before the request is queued
// so that one greedy client cannot fill the queue everyone else waits in.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

import { retryAfterSeconds, type ClientLimits } from '../limits/clientLimits';

/**
 * The client's address: the peer's, or, behind `trustedHops` proxies that append to
 * X-Forwarded-For, the entry the outermost of them wrote (entries further left are
 * whatever the client chose to send).
 */
export function clientAddress(req: IncomingMessage, trustedHops: number): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (trustedHops === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((entry) => entry.trim());
  return hops[hops.length - trustedHops] || peer;
}

/**
 * `listener` behind the limits; refused requests get a JSON 429 with Retry-After. No
 * path is exempt (a path exemption is one any query string can ride): `/health` is
 * cheap, and a balancer's checks come far below any sensible limit.
 */
export function rateLimited(listener: RequestListener, limits: ClientLimits, trustedHops: number): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    limits
      .admitOne(clientAddress(req, trustedHops))
      .then((refused) => {
        if (!refused) return listener(req, res);
        const body = JSON.stringify({ code: 429, message: 'Too many requests from this address; retry shortly.' });
        res.writeHead(429, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
          'Cache-Control': 'no-store',
          'Retry-After': String(retryAfterSeconds(refused.retryAfterMs)),
        });
        res.end(body);
      })
      .catch(() => res.destroy()); // the listener's own failures are answered inside it: this is only a last guard
  };
}
