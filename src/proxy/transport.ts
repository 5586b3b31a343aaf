// How the proxy reaches one node: the node client's transport contract
// (src/rpc/transport.ts), so that another kind (HTTP, say) can stand in for a
// WebSocket. Calls fail with the errors of src/rpc/nodeErrors.ts, which keep
// the node's own JSON-RPC errors (RpcError) apart from transport failures
// (NodeUnavailableError) and from calls the node did not answer in time
// (NodeTimeoutError).
import type { HttpRpcOptions } from '../rpc/httpTransport';
import type { RpcTransport } from '../rpc/transport';
import { WsRpcClient } from '../rpc/wsRpcClient';

/** One connection to a node, as an upstream holds it. */
export type UpstreamTransport = RpcTransport;

/** How an HTTP(S) upstream is used: calls per batch POST, POSTs in flight and per second. */
export type HttpUpstreamSettings = Pick<HttpRpcOptions, 'maxBatch' | 'maxInFlight' | 'ratePerSecond'>;

/** Opens a transport to `url` whose calls give up after `timeoutMs`; `http` applies to an HTTP(S) URL. */
export type TransportFactory = (url: string, timeoutMs: number, http?: HttpUpstreamSettings) => UpstreamTransport;

/** A reconnecting WebSocket (wsRpcClient.ts), which also resubscribes after a reconnect. */
export const webSocketTransport: TransportFactory = (url, timeoutMs) => new WsRpcClient({ url, timeoutMs });
