// The one place that picks how a node is reached from its URL.
import { type HttpRpcOptions, HttpRpcTransport } from './httpTransport';
import type { RpcTransport } from './transport';
import { WsRpcClient } from './wsRpcClient';

export interface TransportOptions {
  /** How long a call may take (over HTTP, retries included). */
  timeoutMs: number;
  /** How an http(s):// node is used: calls per batch, POSTs in flight and per second, HTTP/2, hooks for metrics. */
  http?: Omit<HttpRpcOptions, 'url' | 'timeoutMs'>;
}

/** Whether `url` is reached over HTTP(S) rather than a WebSocket. */
export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/**
 * The transport for `url`: batched HTTP(S) for http(s)://, else a WebSocket that reconnects
 * every second, forever (a lost node comes back without a restart).
 */
export function openTransport(url: string, options: TransportOptions): RpcTransport {
  if (isHttpUrl(url)) return new HttpRpcTransport({ ...options.http, url, timeoutMs: options.timeoutMs });
  return new WsRpcClient({ url, timeoutMs: options.timeoutMs });
}
