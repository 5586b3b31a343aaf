// Every error a request can end in, as the answer a client gets: a status and a
// sentence, never a stack trace or an internal path.
import type { IncomingMessage, ServerResponse } from 'node:http';

import {
  ApiError,
  AtCapacityError,
  BeyondHeadError,
  ChainStateError,
  IncompleteNodeAnswerError,
  NotAtThisBlockError,
  TransactionError,
  UnknownBlockError,
} from '../errors';
import type { Logger } from '../logger';
import { NodeThrottledError, NodeTimeoutError, NodeUnavailableError } from '../rpc/nodeErrors';
import { respond, type Reply } from './reply';
import { BodyAbandonedError } from './requestBody';

/** How long a client is told to wait when the node is away. */
const RETRY_AFTER_SECONDS = 5;

export interface ErrorAnswer {
  reply: Reply;
  /** Not a known condition: a fault worth logging. */
  unexpected: boolean;
  /** The chain's state contradicts its runtime: not fastcar's fault, but the operator should hear of it. */
  chainState?: boolean;
}

function describe(error: unknown): { status: number; message: string; unexpected?: boolean; chainState?: boolean; retryAfterSeconds?: number } {
  if (error instanceof ApiError) return { status: error.status, message: error.message };
  if (error instanceof BeyondHeadError) return { status: 400, message: error.message };
  if (error instanceof UnknownBlockError) return { status: 404, message: error.message };
  if (error instanceof NotAtThisBlockError) return { status: 400, message: error.message };
  if (error instanceof ChainStateError) return { status: 500, message: error.message, chainState: true };
  if (error instanceof AtCapacityError) return { status: 503, message: error.message };
  // Nobody is left to read it: not a fault to log.
  if (error instanceof BodyAbandonedError) return { status: 400, message: error.message };
  // The node's errors (src/rpc/nodeErrors.ts): throttled and unavailable (an answer too large included) are outages, a timeout is late;
  // a JSON-RPC error of the node's that a service did not turn into an answer is unexpected (500, below).
  if (error instanceof NodeThrottledError)
    return { status: 503, message: 'The node provider is limiting requests; retry shortly.', retryAfterSeconds: error.retryAfterSeconds };
  if (error instanceof NodeUnavailableError) return { status: 503, message: 'The node is unavailable; retry shortly.' };
  if (error instanceof IncompleteNodeAnswerError) return { status: 503, message: error.message, unexpected: true };
  if (error instanceof NodeTimeoutError) return { status: 504, message: 'The node did not answer in time.' };
  // What Express's own parsing throws (a malformed URL) carries a 4xx status.
  const status = (error as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, message: status === 400 ? 'Malformed request.' : 'Request rejected.' };
  }
  return { status: 500, message: 'Internal Error', unexpected: true };
}

/** Sidecar's body for a transaction it could not use, without the stack it adds. */
function transactionErrorBody(error: TransactionError): string {
  const { status, summary, transaction, explanation, at, reason } = error;
  return JSON.stringify({ code: status, error: summary, transaction, cause: explanation, ...(at ? { at } : {}), ...(reason ? { reason } : {}) });
}

export function errorReply(error: unknown): ErrorAnswer {
  if (error instanceof TransactionError) return { reply: { status: error.status, body: transactionErrorBody(error) }, unexpected: false };
  const { status, message, unexpected = false, chainState, retryAfterSeconds = RETRY_AFTER_SECONDS } = describe(error);
  return {
    reply: { status, body: JSON.stringify({ code: status, message }), retryAfterSeconds: status === 503 ? retryAfterSeconds : undefined },
    unexpected,
    chainState,
  };
}

/**
 * Answers a request that failed with `error`, logging the unexpected. An answer already
 * under way can only be cut short (no client may take half an answer for a whole one).
 */
export function answerError(req: IncomingMessage, res: ServerResponse, error: unknown, logger: Logger, url: string): void {
  const { reply, unexpected, chainState } = errorReply(error);
  if (unexpected) logger.error({ err: error, url: url.slice(0, 300) }, 'request failed');
  else if (chainState) logger.warn({ reason: reply.body, url: url.slice(0, 300) }, "the chain's state at the block asked contradicts its runtime");
  if (res.headersSent) {
    res.end();
    return;
  }
  respond(req, res, reply).catch(() => res.destroy());
}
