// JSON-RPC 2.0 messages as the proxy reads and writes them. Everything a client
// sends is checked here, before any of it is used: nesting depth before parsing
// (a deeply nested id would overflow the stack of anything recursive that later
// touches it), then the request's own shape.

import { RpcCode } from '../rpc/rpcCodes';

export type RpcId = string | number | null;

export interface RpcCall {
  id: RpcId;
  /** A notification (no `id`): the client wants no answer. */
  notification: boolean;
  method: string;
  params: unknown[];
}

export type RpcResponse =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId; error: { code: number; message: string; data?: unknown } };

/** Deeper than any Substrate call needs (state_queryStorageAt is three levels). */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether the text nests arrays and objects deeper than `limit`, found by one pass
 * over its bytes that skips string contents: cheap, and safe on any input.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export type Parsed = { ok: true; value: unknown } | { ok: false; response: RpcResponse };

export function parseMessage(text: string): Parsed {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return { ok: false, response: failure(null, RpcCode.invalidRequest, `Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels`) };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, response: failure(null, RpcCode.parseError, 'Parse error') };
  }
}

// The two shapes clients send most (the fields in the order JSON.stringify and polkadot.js write them),
// with no whitespace, an id of plain digits or plain characters, a method name, and no params or `[]`.
// Nothing in them can be escaped or nested, so a match reads exactly as JSON.parse would; anything
// else, however slightly different, goes through the full parse and its checks.
const PLAIN_ID = '(?:(0|[1-9][0-9]{0,14})|"([A-Za-z0-9_-]{0,64})")';
const PLAIN_METHOD = '"method":"([A-Za-z][A-Za-z0-9_]{0,127})"(?:,"params":\\[\\])?\\}$';
const JSONRPC_FIRST = new RegExp(`^\\{"jsonrpc":"2\\.0","id":${PLAIN_ID},${PLAIN_METHOD}`);
const ID_FIRST = new RegExp(`^\\{"id":${PLAIN_ID},"jsonrpc":"2\\.0",${PLAIN_METHOD}`);
/** Longer than any text the two shapes can match. */
const PLAIN_MAX_CHARS = 260;

/**
 * A single call in one of the commonest plain shapes, read without JSON.parse (a
 * cached call costs little else); undefined for anything else, to be parsed in full.
 */
export function plainCall(text: string): RpcCall | undefined {
  if (text.length > PLAIN_MAX_CHARS || text.charCodeAt(0) !== 0x7b || text.charCodeAt(1) !== 0x22) return undefined;
  const match = (text.charCodeAt(2) === 0x6a ? JSONRPC_FIRST : ID_FIRST).exec(text);
  if (match === null) return undefined;
  const id = match[1] !== undefined ? Number(match[1]) : match[2];
  return { id, notification: false, method: match[3], params: [] };
}

function isId(value: unknown): value is RpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** A call read from one request object, or the error answer it deserves. */
export function readCall(value: unknown): { call: RpcCall } | { response: RpcResponse } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { response: failure(null, RpcCode.invalidRequest, 'Invalid Request: not an object') };
  }
  const request = value as Record<string, unknown>;
  const hasId = Object.hasOwn(request, 'id');
  if (hasId && !isId(request.id)) {
    return { response: failure(null, RpcCode.invalidRequest, 'Invalid Request: id must be a string, a number or null') };
  }
  const id = hasId ? (request.id as RpcId) : null;
  if (request.jsonrpc !== '2.0') return { response: failure(id, RpcCode.invalidRequest, 'Invalid Request: jsonrpc must be "2.0"') };
  if (typeof request.method !== 'string' || request.method.length === 0 || request.method.length > 128) {
    return { response: failure(id, RpcCode.invalidRequest, 'Invalid Request: method must be a non-empty string') };
  }
  const params = request.params;
  if (params !== undefined && !Array.isArray(params)) {
    return { response: failure(id, RpcCode.invalidParams, 'Invalid params: params must be an array') };
  }
  return { call: { id, notification: !hasId, method: request.method, params: params ?? [] } };
}

export function success(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function failure(id: RpcId, code: number, message: string, data?: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}
