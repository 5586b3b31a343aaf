// JSON-RPC 2.0 error codes: the standard ones, the ones Substrate nodes use for
// limits, and the proxy's own for "no upstream could answer". Shared by the node
// client, which must recognize them, and the proxy, which sends them.
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  serverIsBusy: -32009,
  /** Over a rate limit (EIP-1474's "limit exceeded"); `data.retryAfterMs` says when to try again. */
  rateLimited: -32005,
  tooManySubscriptions: -32006,
  /** A Substrate node's --rpc-rate-limit: a call held back past its wait ("RPC rate limit exceeded"). */
  nodeRateLimited: -32999,
  /** chainHead_v1_follow: too many follows already (the new JSON-RPC spec's code). */
  followLimit: -32800,
  batchTooLarge: -32010,
  /** An answer over the proxy's size limit (jsonrpsee's "response is too big"). */
  responseTooLarge: -32008,
  /** No upstream node could give a usable answer: an outage, not a fault of the call. */
  noUpstream: -32090,
  /** The node did not answer this call in time: the call's failure (it may be an expensive one), the node is still up. */
  upstreamTimeout: -32091,
} as const;
