// When a call to a node is sent again, and after how long: one policy for every
// retry the HTTP transport makes, free of sockets and timers so that it can be
// tested as it is. The transport says what went wrong (a FailureKind, with the
// call's failures counted), this says whether the call goes again and when.
// The proxy's back-off of an overloaded or failing node uses the same back-off.

/** A Retry-After longer than this is read as this: a bogus header must not stop the client for hours. */
export const MAX_PAUSE_MS = 60_000;
/** Without a Retry-After: 250 ms, doubling per failed attempt of a call, at most 8 s. */
export const BASE_BACKOFF_MS = 250;
export const MAX_BACKOFF_MS = 8_000;
/** Times a call is sent again after a failure of the connection or of the server itself (not a "slow down"). */
export const CONNECTION_RETRIES = 2;

export type FailureKind =
  /** The server asked to slow down (HTTP 429/503, a JSON-RPC "busy"): sent again until its deadline, after the pause. */
  | 'throttled'
  /** An error page (HTTP 5xx without a JSON-RPC answer): sent again twice, after a back-off that must end before its deadline. */
  | 'serverError'
  /** A kept-alive connection the server had closed under us: sent again twice, at once, on a fresh one. */
  | 'staleConnection'
  /** A batch came back without an answer to this call: sent again twice, at once, on its own (never a submission). */
  | 'unansweredInBatch'
  /** The server would not take the batch (too large, or no batches at all): sent again at once, in smaller POSTs. */
  | 'batchRefused'
  /** Anything else (no connection, no JSON-RPC answer, a single call unanswered): not sent again. */
  | 'fatal';

/** What the policy needs to know of a call. */
export interface Attempted {
  /** Failed attempts so far, the one just met included. */
  failures: number;
  /** Whether it may be sent twice (reads may; submissions may not). */
  idempotent: boolean;
  /** When it must be answered, epoch ms. */
  deadline: number;
}

/** Whether a failure of this kind is one more failed attempt of the call (a refused batch is the batch's, not the call's). */
export function countsAsFailure(kind: FailureKind): boolean {
  return kind !== 'batchRefused' && kind !== 'fatal';
}

/** Whether `call`, having met a failure of `kind`, is sent again when it would be sent at `at` (epoch ms). */
export function mayRetry(kind: FailureKind, call: Attempted, at: number): boolean {
  switch (kind) {
    case 'throttled':
      // However many times, for as long as its deadline allows: said at once when none can happen in time.
      return call.idempotent && at < call.deadline;
    case 'serverError':
      return call.idempotent && call.failures <= CONNECTION_RETRIES && at < call.deadline;
    case 'staleConnection':
      return call.idempotent && call.failures <= CONNECTION_RETRIES;
    case 'unansweredInBatch':
      // The server may have run it and lost only the answer: a submission sent again could be submitted twice.
      return call.idempotent && call.failures <= CONNECTION_RETRIES;
    case 'batchRefused':
      return true;
    case 'fatal':
      return false;
  }
}

/**
 * How long to wait before sending again after `failures` failed attempts: the server's
 * Retry-After when it gave one (at most MAX_PAUSE_MS), else BASE_BACKOFF_MS doubling per
 * failure, at most `maxMs` (MAX_BACKOFF_MS unless told). With `random` (Math.random, say) the
 * back-off is spread over 75-125 %, so that calls throttled together do not all come back together.
 */
export function backoffMs(failures: number, retryAfterMs?: number, random?: () => number, maxMs = MAX_BACKOFF_MS): number {
  if (retryAfterMs !== undefined) return Math.min(MAX_PAUSE_MS, retryAfterMs);
  const backoff = Math.min(maxMs, BASE_BACKOFF_MS * 2 ** Math.max(0, failures - 1));
  return random ? Math.round(backoff * (0.75 + random() / 2)) : backoff;
}

/** Retry-After in ms: seconds (whole or not) or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const raw = headers['retry-after'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(MAX_PAUSE_MS, Math.round(Number(value) * 1000));
  if (!/[a-z]/i.test(value)) return undefined; // a negative or otherwise unreadable number
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(MAX_PAUSE_MS, Math.max(0, at - now));
}
