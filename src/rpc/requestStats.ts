// Per-request accounting of RPC calls and of sequential waves of them, carried
// through async calls without threading a context argument everywhere.
//
// A wave is a stretch of time with at least one call in flight: calls issued
// together count once, a call that has to wait for another's answer starts a
// new wave. That is the number of round trips the request's latency pays for.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestStats {
  rpcCalls: number;
  waves: number;
  methods: Record<string, number>;
  inFlight: number;
  /** The cache fact the answer announced (X-Cache), as the reply writer sent it. */
  cache?: 'hit' | 'miss';
  /** Resends already counted as waves (see retryRounds). */
  retryRounds?: Set<number>;
}

const storage = new AsyncLocalStorage<RequestStats>();

export function newRequestStats(): RequestStats {
  return { rpcCalls: 0, waves: 0, methods: {}, inFlight: 0 };
}

export function runWithStats<T>(stats: RequestStats, fn: () => T): T {
  return storage.run(stats, fn);
}

/** The stats of the request this code runs for, if any: the HTTP transport batches a request's calls together. */
export function currentStats(): RequestStats | undefined {
  return storage.getStore();
}

/** Records a call going out; the returned function records its answer. */
export function countCall(method: string): () => void {
  const stats = storage.getStore();
  if (!stats) return noop;
  stats.rpcCalls += 1;
  stats.methods[method] = (stats.methods[method] ?? 0) + 1;
  if (stats.inFlight === 0) stats.waves += 1;
  stats.inFlight += 1;
  return () => {
    stats.inFlight -= 1;
  };
}

function noop() {}

/**
 * For a call that may be sent again (after a provider said to slow down): each
 * resend is one more sequential round for the request, counted once however
 * many of its calls share it (`round` names the resend).
 */
export function retryRounds(): (round: number) => void {
  const stats = storage.getStore();
  if (!stats) return noop;
  return (round) => {
    stats.retryRounds ??= new Set();
    if (stats.retryRounds.has(round)) return;
    stats.retryRounds.add(round);
    stats.waves += 1;
  };
}

/** Awaits calls that do not depend on each other: they are all in flight already. */
export function wave<T extends readonly unknown[]>(calls: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  return Promise.all(calls) as Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }>;
}
