// The one family of errors a call to a node ends in, whichever transport
// carried it (WebSocket or HTTP) and whoever made it (the node client or the
// proxy's upstreams): both transports throw these and nothing else of their
// own, so callers sort them once, by class.
//
//   NodeError                 the call got no result from the node
//     NodeUnavailableError    the node cannot be reached now (not connected, gone, not speaking JSON-RPC)
//       NodeThrottledError    its provider kept asking to slow down past the call's deadline
//       AnswerTooLargeError   its answer was larger than we read
//     NodeTimeoutError        the call was sent and not answered by its deadline
//     RpcError                the node answered with a JSON-RPC error (code, message, data)
//       NodeRpcError          the same as the node client hands it on (message `code: message: data`)

import { RpcCode } from './rpcCodes';

/** The call got no result from the node. */
export class NodeError extends Error {}

/** The node cannot be reached now: not connected, disconnected with the call in flight, closed by us, or not speaking JSON-RPC. */
export class NodeUnavailableError extends NodeError {}

/** The node's provider kept asking us to slow down past the call's deadline: an outage for now, with a time to come back. */
export class NodeThrottledError extends NodeUnavailableError {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }

  /** When to come back, in whole seconds (at least 1), as a Retry-After header says it. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.retryAfterMs / 1000));
  }
}

/** The node's answer was larger than the transport reads. */
export class AnswerTooLargeError extends NodeUnavailableError {}

/** The call was sent and not answered by its deadline: the call's failure (it may be an expensive one), not proof the node is gone. */
export class NodeTimeoutError extends NodeError {}

/**
 * A JSON-RPC error with its code, message and data: the node's answer to a call (the call's
 * own outcome, passed back as it is), or one the proxy makes itself for its clients.
 */
export class RpcError extends NodeError {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** `code: message: data`, for logs and matching. */
  get detail(): string {
    const { data } = this;
    return `${this.code}: ${this.message}${data === undefined ? '' : `: ${typeof data === 'string' ? data : JSON.stringify(data)}`}`;
  }
}

/** A node's JSON-RPC error as the node client hands it on: its message is the reply's detail, `code: message: data`. */
export class NodeRpcError extends RpcError {
  constructor(reply: RpcError) {
    super(reply.code, reply.detail, reply.data);
  }
}

/**
 * The node cannot answer this method at all: it does not serve the RPC (-32601), or the
 * runtime it asks on the call's behalf exports no such function (a node's payment RPC
 * over a runtime older than the payment API: "Exported method … is not found").
 */
export function isMissingMethod(error: unknown): boolean {
  return error instanceof RpcError && (error.code === RpcCode.methodNotFound || /Exported method \S+ is not found/.test(error.message));
}
