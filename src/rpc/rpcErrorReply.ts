// A node's JSON-RPC error answer, as the transports (HTTP and WebSocket) hand
// it to their callers: the code, the node's own message and data kept apart,
// and a message of the form `code: message: data` for logs and matching.

/** The server answered the call with a JSON-RPC error: the call's own outcome. */
export class RpcErrorReply extends Error {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    readonly data?: unknown,
  ) {
    super(`${code}: ${rpcMessage}${data === undefined ? '' : `: ${typeof data === 'string' ? data : JSON.stringify(data)}`}`);
  }
}
