// What an HTTP JSON-RPC server's answer to one POST means, read without
// sockets: the status, headers and body in, per call a result, the node's
// JSON-RPC error or "slow down" out, or for the POST as a whole a retryable
// failure (throttled, an error page, a refused batch) or a fatal one. Also what
// a POST that got no answer at all failed of. The transport acts on these.
import { retryAfterMs } from './retryPolicy';
import { RpcError } from './nodeErrors';
import { RpcCode } from './rpcCodes';

export type HttpHeaders = Record<string, string | string[] | undefined>;

/** One call's part of an answer. */
export type CallAnswer = { kind: 'result'; result: unknown } | { kind: 'error'; error: RpcError } | { kind: 'throttled' };

export type HttpAnswer =
  /** The server asked the whole POST to slow down: `how` is `http429`, `http503` or `rpc` (one JSON-RPC error for a batch). */
  | { kind: 'throttled'; how: string; retryAfterMs?: number }
  /** An error page (HTTP 5xx without a JSON-RPC answer): worth another try or two. */
  | { kind: 'serverError'; message: string }
  /** The batch was too large: smaller ones from now on. */
  | { kind: 'batchTooLarge' }
  /** Anything but a list of answers to a batch (a 4xx, one error for the whole batch, nonsense): single calls from now on. */
  | { kind: 'batchRefused' }
  /** Not a JSON-RPC answer to a single call: the server does not speak JSON-RPC. */
  | { kind: 'fatal'; message: string }
  /** The answers, by the calls' positions in the POST (undefined: no answer to that call); Retry-After for those throttled. */
  | { kind: 'answers'; answers: (CallAnswer | undefined)[]; retryAfterMs?: number };

interface JsonRpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** JSON-RPC errors meaning "slow down": jsonrpsee's busy, a Substrate node's rate limit, the common providers' limit codes, and their words. */
export const THROTTLE_CODES: ReadonlySet<number> = new Set([-32005, RpcCode.serverIsBusy, RpcCode.nodeRateLimited, -32097, -32098, 429]);
const THROTTLE_WORDS = /too many requests|rate.?limit|request limit|limit exceeded|server is busy|\bbusy\b|overload|over capacity|throttl/i;
const BATCH_TOO_LARGE_CODE = -32010;
const BATCH_TOO_LARGE_WORDS = /batch.*(too large|too big|size|limit|exceed)|too many (calls|requests) in (a |the )?batch/i;
/** Errors of a connection the server closed under us: worth one more try on a fresh one. */
const STALE_CONNECTION = /ECONNRESET|EPIPE|UND_ERR_SOCKET|other side closed|socket hang up|UND_ERR_CLOSED/i;

/**
 * Reads the answer to a POST of the calls with JSON-RPC ids `ids` (a batch when there are
 * several, a single call's object when one). `now` dates an HTTP-date Retry-After.
 */
export function classifyHttpAnswer(status: number, headers: HttpHeaders, body: string, ids: readonly number[], now = Date.now()): HttpAnswer {
  const asBatch = ids.length > 1;
  const retryAfter = retryAfterMs(headers, now);
  if (status === 429 || status === 503) return { kind: 'throttled', how: `http${status}`, retryAfterMs: retryAfter };
  const json = parseJson(body);
  const speaksJsonRpc = Array.isArray(json) || isAnswer(json);
  if (status >= 500 && !speaksJsonRpc) return { kind: 'serverError', message: `the JSON-RPC server answered HTTP ${status}` };
  if (asBatch) {
    if (status === 413 || (isErrorObject(json) && isBatchTooLarge(json))) return { kind: 'batchTooLarge' };
    if (isErrorObject(json) && isThrottle(json)) return { kind: 'throttled', how: 'rpc', retryAfterMs: retryAfter };
    if (!Array.isArray(json)) return { kind: 'batchRefused' };
  } else if (!speaksJsonRpc) {
    return { kind: 'fatal', message: `the JSON-RPC server answered HTTP ${status} without a JSON-RPC answer` };
  }
  const positions = new Map(ids.map((id, at) => [id, at]));
  const answers: (CallAnswer | undefined)[] = ids.map(() => undefined);
  for (const answer of (Array.isArray(json) ? json : [json]) as JsonRpcAnswer[]) {
    if (!isAnswer(answer)) continue;
    // A single call answered with a null id (some servers do so for errors) is still its answer.
    const at = typeof answer.id === 'number' ? positions.get(answer.id) : !asBatch ? 0 : undefined;
    if (at === undefined || answers[at] !== undefined) continue;
    if (answer.error) {
      answers[at] = isThrottle(answer)
        ? { kind: 'throttled' }
        : { kind: 'error', error: new RpcError(Number(answer.error.code), String(answer.error.message ?? ''), answer.error.data) };
    } else {
      answers[at] = { kind: 'result', result: answer.result };
    }
  }
  return { kind: 'answers', answers, retryAfterMs: retryAfter };
}

/** Why a POST got no answer: a kept-alive connection the server closed (worth another), an answer over the size limit, or no server. */
export function classifyHttpFailure(error: unknown): { kind: 'staleConnection' | 'answerTooLarge' | 'unreachable'; message: string } {
  const message = describeError(error);
  if ((error as { code?: unknown })?.code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return { kind: 'answerTooLarge', message };
  return { kind: STALE_CONNECTION.test(message) ? 'staleConnection' : 'unreachable', message };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isAnswer(value: unknown): value is JsonRpcAnswer {
  return typeof value === 'object' && value !== null && ('result' in value || 'error' in value);
}

function isErrorObject(value: unknown): value is JsonRpcAnswer & { error: object } {
  return isAnswer(value) && typeof value.error === 'object' && value.error !== null;
}

function isThrottle(answer: JsonRpcAnswer): boolean {
  const code = Number(answer.error?.code);
  return THROTTLE_CODES.has(code) || THROTTLE_WORDS.test(String(answer.error?.message ?? ''));
}

function isBatchTooLarge(answer: JsonRpcAnswer): boolean {
  return Number(answer.error?.code) === BATCH_TOO_LARGE_CODE || BATCH_TOO_LARGE_WORDS.test(String(answer.error?.message ?? ''));
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: unknown })?.cause;
  const causeText = cause instanceof Error ? ` (${cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${message}${causeText}`;
}
