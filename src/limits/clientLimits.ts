// The rate limits one service puts on its clients: every call of a client address
// counts against that address's rate, and calls of a costly method (`state_call`,
// `archive_*`, ...) against the address's rate for that method too. Counted in
// Redis when there is a store (one limit for every process sharing it), in
// process otherwise. fastcar counts each request as one call with no method; the
// proxy counts each JSON-RPC call of a message.
import type { CounterStore } from './counterStore';
import { MethodRates, type MethodRate, type Rate } from './rates';
import { WindowLimiter } from './windowLimiter';

export interface ClientLimitsOptions {
  /** Every call of an address; undefined: no limit on all calls together. */
  perClient?: Rate;
  /** Calls of an address to one method (or prefix), in the same window. */
  perMethod: readonly MethodRate[];
  windowSeconds: number;
}

export interface Refused {
  /** How long until the client may try again. */
  retryAfterMs: number;
  /** Which limit it met: `client`, or the method pattern. */
  limit: string;
}

/** Whole seconds for Retry-After, never 0 (a client told 0 asks again at once). */
export const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class ClientLimits {
  private readonly perClient?: WindowLimiter;
  private readonly methods: MethodRates;
  private readonly perMethod = new Map<string, WindowLimiter>();
  /** Calls refused since start, by the limit they met. */
  readonly refusals = new Map<string, number>();
  /** Calls let in without waiting for the counters since start (admitNow). */
  admittedAtOnce = 0;

  /** `service` keeps one service's counters apart from another's in a shared Redis. */
  constructor(service: string, options: ClientLimitsOptions, store?: CounterStore) {
    const prefix = `limits:${service}`;
    if (options.perClient) this.perClient = new WindowLimiter(options.perClient, `${prefix}:client`, store);
    this.methods = new MethodRates(options.perMethod);
    for (const { pattern, calls, burst } of options.perMethod) {
      this.perMethod.set(pattern, new WindowLimiter({ calls, burst, windowSeconds: options.windowSeconds }, `${prefix}:method:${pattern}`, store));
    }
  }

  get refused(): number {
    let total = 0;
    for (const count of this.refusals.values()) total += count;
    return total;
  }

  /** One request of `address` (fastcar's): counted against its rate. */
  admitOne(address: string): Promise<Refused | undefined> {
    return this.admit(address, 1, undefined);
  }

  /**
   * One call of `address` to `method`, let in at once when every limit it counts against
   * knows the address to be well under its window (counted then, its increment sent in
   * the background); false when it must wait for the counters (admitCalls), nothing counted.
   */
  admitNow(address: string, method: string): boolean {
    const rule = this.perMethod.size > 0 ? this.methods.of(method) : undefined;
    const byMethod = rule ? this.perMethod.get(rule.pattern) : undefined;
    if (this.perClient && !this.perClient.fitsNow(address, 1)) return false;
    if (byMethod && !byMethod.fitsNow(address, 1)) return false;
    this.perClient?.admitNow(address, 1);
    byMethod?.admitNow(address, 1);
    this.admittedAtOnce += 1;
    return true;
  }

  /** Calls of `address` to `methods` (one entry per call): admitted together, or refused with the longest wait among the limits they met. */
  admitCalls(address: string, methods: readonly string[]): Promise<Refused | undefined> {
    // No calls (an empty batch, refused as malformed next) count for nothing.
    if (methods.length === 0) return Promise.resolve(undefined);
    let byRule: Map<string, number> | undefined;
    if (this.perMethod.size > 0) {
      for (const method of methods) {
        const rule = this.methods.of(method);
        if (!rule) continue;
        byRule ??= new Map();
        byRule.set(rule.pattern, (byRule.get(rule.pattern) ?? 0) + 1);
      }
    }
    return this.admit(address, methods.length, byRule);
  }

  private async admit(address: string, calls: number, byRule: Map<string, number> | undefined): Promise<Refused | undefined> {
    const checks: Promise<Refused | undefined>[] = [];
    if (this.perClient) checks.push(this.check(this.perClient, 'client', address, calls));
    if (byRule) for (const [pattern, count] of byRule) checks.push(this.check(this.perMethod.get(pattern)!, pattern, address, count));
    if (checks.length === 0) return undefined;
    // Asked together: with Redis, one round trip for all of them.
    const verdicts = checks.length === 1 ? [await checks[0]] : await Promise.all(checks);
    let refused: Refused | undefined;
    for (const verdict of verdicts) if (verdict && (!refused || verdict.retryAfterMs > refused.retryAfterMs)) refused = verdict;
    if (refused) this.refusals.set(refused.limit, (this.refusals.get(refused.limit) ?? 0) + calls);
    return refused;
  }

  private async check(limiter: WindowLimiter, limit: string, address: string, calls: number): Promise<Refused | undefined> {
    const retryAfterMs = await limiter.wait(address, calls);
    return retryAfterMs > 0 ? { retryAfterMs, limit } : undefined;
  }
}
