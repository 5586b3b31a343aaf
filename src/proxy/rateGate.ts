// The proxy's rate limits, checked as a client's message is admitted, before any
// of its calls is scheduled: each call counts against its client address, and a
// call of a costly method (PROXY_RATE_LIMIT_METHODS) against the address's limit
// for that method too; with PROXY_REDIS_URL the counters are shared by every
// proxy using that Redis. A message over a limit is answered whole with JSON-RPC
// errors carrying a retry hint (over HTTP, with 429 and Retry-After).
import { Counter, Gauge, type Registry } from 'prom-client';

import { ClientLimits, retryAfterSeconds } from '../limits/clientLimits';
import { CounterStore } from '../limits/counterStore';
import { parseMethodRates } from '../limits/rates';
import type { Logger } from '../logger';
import { RpcCode } from '../rpc/rpcCodes';
import { failure, readCall, type RpcResponse } from './jsonRpc';
import { Outgoing } from './outgoing';
import type { ProxyRateLimits } from './proxyConfig';

/** An answer refusing a message for its rate: the front sends it over HTTP as a 429. */
export class RateLimitedAnswer extends Outgoing {
  constructor(readonly retryAfterSeconds: number) {
    super();
  }
}

export class RateGate {
  private constructor(
    private readonly limits: ClientLimits,
    private readonly store: CounterStore | undefined,
  ) {}

  /** The gate for these settings, or none when no limit is set. */
  static of(options: ProxyRateLimits, registry: Registry, logger: Logger): RateGate | undefined {
    const { rateLimit, rateLimitWindowSeconds: windowSeconds, rateLimitBurst: burst, redisUrl } = options;
    const perMethod = parseMethodRates(options.rateLimitMethods, 'rateLimitMethods');
    if (rateLimit === 0 && perMethod.length === 0) return undefined;
    const store = redisUrl ? new CounterStore(redisUrl, logger) : undefined;
    const perClient = rateLimit > 0 ? { calls: rateLimit, windowSeconds, burst } : undefined;
    const limits = new ClientLimits('proxy', { perClient, perMethod, windowSeconds }, store);
    new Counter({
      name: 'proxy_rate_limited_calls_total',
      help: 'Calls refused for a rate limit, by the limit met (client, or the method rule)',
      labelNames: ['limit'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [limit, calls] of limits.refusals) this.inc({ limit }, calls);
      },
    });
    new Counter({
      name: 'proxy_rate_limit_admitted_at_once_total',
      help: 'Calls let in without waiting for the counters: their address was known to be well under its limits',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(limits.admittedAtOnce);
      },
    });
    new Gauge({
      name: 'proxy_rate_limits_shared',
      help: '1 while rate limits are counted in Redis (shared by every proxy using it), 0 while in this process',
      registers: [registry],
      collect() {
        this.set(store?.shared ? 1 : 0);
      },
    });
    return new RateGate(limits, store);
  }

  /**
   * A single call let in at once, its client known to be well under its limits (counted
   * without waiting for Redis); false when the message must wait for `check`, nothing
   * counted. Batches always wait.
   */
  admitNow(client: string, message: unknown): boolean {
    if (Array.isArray(message)) return false;
    const method = (message as { method?: unknown } | null)?.method;
    return this.limits.admitNow(client, typeof method === 'string' ? method : '');
  }

  /** Undefined when the message may go on; else the answer refusing each of its calls. */
  async check(client: string, message: unknown): Promise<RateLimitedAnswer | undefined> {
    const entries = Array.isArray(message) ? message : [message];
    const methods = entries.map((entry) => {
      const method = (entry as { method?: unknown } | null)?.method;
      return typeof method === 'string' ? method : '';
    });
    const refused = await this.limits.admitCalls(client, methods);
    if (!refused) return undefined;
    const seconds = retryAfterSeconds(refused.retryAfterMs);
    const over = refused.limit === 'client' ? 'calls from this address' : `${refused.limit} calls from this address`;
    const answers: RpcResponse[] = [];
    for (const entry of entries) {
      const read = readCall(entry);
      if ('response' in read) answers.push(read.response);
      else if (!read.call.notification) {
        answers.push(failure(read.call.id, RpcCode.rateLimited, `Too many ${over}; retry in ${seconds} s`, { retryAfterMs: refused.retryAfterMs }));
      }
    }
    // Notifications alone are still told why nothing of theirs was done.
    if (answers.length === 0)
      answers.push(failure(null, RpcCode.rateLimited, `Too many ${over}; retry in ${seconds} s`, { retryAfterMs: refused.retryAfterMs }));
    const text = JSON.stringify(Array.isArray(message) ? answers : answers[0]);
    return new RateLimitedAnswer(seconds).push(text);
  }

  close(): void {
    this.store?.close();
  }
}
