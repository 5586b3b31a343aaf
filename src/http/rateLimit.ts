// Optional per-client rate limit: a token bucket per address, refilled at `perSecond`
// and holding one second's worth, checked before a request is queued so that one
// greedy client cannot fill the queue everyone else waits in.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly sweeper: NodeJS.Timeout;
  rejected = 0;

  constructor(private readonly perSecond: number) {
    // A bucket idle for a second is full again, as good as absent.
    this.sweeper = setInterval(() => this.sweep(), 10_000).unref();
  }

  /** 0 when `client` may go ahead, else the seconds until it may. */
  take(client: string, now = performance.now()): number {
    const bucket = this.buckets.get(client);
    if (!bucket) {
      this.buckets.set(client, { tokens: this.perSecond - 1, at: now });
      return 0;
    }
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    this.rejected++;
    return Math.ceil((1 - bucket.tokens) / this.perSecond);
  }

  get clients(): number {
    return this.buckets.size;
  }

  sweep(now = performance.now()): void {
    for (const [client, bucket] of this.buckets) if (now - bucket.at >= 1000) this.buckets.delete(client);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

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
 * `listener` behind the limiter; refused requests get a JSON 429 with Retry-After. No
 * path is exempt (a path exemption is one any query string can ride): `/health` is
 * cheap, and a balancer's checks come far below any sensible limit.
 */
export function rateLimited(listener: RequestListener, limiter: RateLimiter, trustedHops: number): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const wait = limiter.take(clientAddress(req, trustedHops));
    if (wait === 0) return listener(req, res);
    const body = JSON.stringify({ code: 429, message: 'Too many requests from this address; retry shortly.' });
    res.writeHead(429, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      'Retry-After': String(wait),
    });
    res.end(body);
  };
}
