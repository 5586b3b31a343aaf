// What a rate limit is: calls per window with a burst, for a client address and,
// for the methods that cost a node far more than the rest, for an address and one
// of those methods. Read here from the settings of fastcar and of the proxy alike.
import { ConfigError } from '../settings';

export interface Rate {
  /** Calls allowed in each window. */
  calls: number;
  windowSeconds: number;
  /** Calls beyond those, at most this many in BURST_WINDOWS windows; 0: none. */
  burst: number;
}

/** A burst, once spent, comes back after this many windows: a client may go over its rate now and then, not always. */
export const BURST_WINDOWS = 10;

/** The limit of one method, or of every method a prefix names (`archive_*` counts all of them together). */
export interface MethodRate {
  /** An exact method name, or a prefix ending in `*`. */
  pattern: string;
  calls: number;
  burst: number;
}

const PATTERN = /^[A-Za-z0-9_]+\*?$/;
const ENTRY = /^([^=\s]+)\s*=\s*(\d+)(?:\s*\+\s*(\d+))?$/;
/** More rules than any deployment needs: each is a counter per client address. */
const MAX_METHOD_RATES = 64;
const MAX_CALLS = 1_000_000;

/**
 * `state_call=20+40, state_getKeysPaged=20, archive_*=5`: each method (or prefix) with its
 * calls per window and, after `+`, its burst. Empty: no method has a limit of its own.
 */
export function parseMethodRates(spec: string, setting = 'the method limits'): MethodRate[] {
  const rates: MethodRate[] = [];
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const match = ENTRY.exec(entry);
    const rule = `write each as method=calls or method=calls+burst, e.g. state_call=20+40,archive_*=5`;
    if (!match) throw new ConfigError(`${setting}: "${entry.slice(0, 80)}" is not valid: ${rule}`);
    const [, pattern, callsText, burstText = '0'] = match;
    const [calls, burst] = [Number(callsText), Number(burstText)];
    if (!PATTERN.test(pattern)) throw new ConfigError(`${setting}: "${pattern.slice(0, 80)}" is not a method name or a prefix ending in *`);
    if (calls < 1 || calls > MAX_CALLS || burst > MAX_CALLS)
      throw new ConfigError(`${setting}: ${pattern} needs from 1 to ${MAX_CALLS} calls and a burst of at most ${MAX_CALLS}`);
    if (rates.some((rate) => rate.pattern === pattern)) throw new ConfigError(`${setting}: ${pattern} is named twice`);
    rates.push({ pattern, calls, burst });
  }
  if (rates.length > MAX_METHOD_RATES) throw new ConfigError(`${setting}: at most ${MAX_METHOD_RATES} methods may have limits of their own`);
  return rates;
}

/** Which rule counts a method's calls: its own name first, else the longest prefix that matches it. */
export class MethodRates {
  private readonly exact = new Map<string, MethodRate>();
  private readonly prefixes: MethodRate[];

  constructor(rates: readonly MethodRate[]) {
    for (const rate of rates) if (!rate.pattern.endsWith('*')) this.exact.set(rate.pattern, rate);
    this.prefixes = rates.filter((rate) => rate.pattern.endsWith('*')).sort((a, b) => b.pattern.length - a.pattern.length);
  }

  get size(): number {
    return this.exact.size + this.prefixes.length;
  }

  of(method: string): MethodRate | undefined {
    const own = this.exact.get(method);
    if (own) return own;
    for (const rate of this.prefixes) if (method.startsWith(rate.pattern.slice(0, -1))) return rate;
    return undefined;
  }
}
