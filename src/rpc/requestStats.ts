// Per-request counts of RPC calls and of sequential waves of them. A request's
// services call the node through its own view of the node client
// (NodeClient.forRequest), which counts here: explicit, where an AsyncLocalStorage
// would put a hook on every promise of the process (a sixth of a small block's CPU).
//
// A wave is a stretch of time with at least one call in flight: calls issued
// together count once, a call that has to wait for another's answer starts a
// new wave. That is the number of round trips the request's latency pays for.
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

export function newRequestStats(): RequestStats {
  return { rpcCalls: 0, waves: 0, methods: {}, inFlight: 0 };
}

/** Records a call going out for a request (none: nobody's); the returned function records its answer. */
export function countCall(stats: RequestStats | undefined, method: string): () => void {
  if (!stats) return noop;
  stats.rpcCalls += 1;
  stats.methods[method] = (stats.methods[method] ?? 0) + 1;
  return countWait(stats);
}

/**
 * Records a wait on a call another request sent (one asked for both): no call of
 * this request's, but a round its latency pays for all the same. Returns the
 * function that records the answer.
 */
export function countWait(stats: RequestStats | undefined): () => void {
  if (!stats) return noop;
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
export function retryRounds(stats: RequestStats | undefined): (round: number) => void {
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
