// What a route family is, as data: its routes (path, query parameters, answer), the
// parameters' meanings and the answers' schemas. Controllers declare a family and
// its handlers; the HTTP layer serves them (routeBinder.ts) and describes them
// (openapi.ts) from the same declaration, so neither can drift from the other.
import type { IncomingHttpHeaders } from 'node:http';

import type { RequestStats } from '../rpc/requestStats';
import type { Answer, EventStreamReply } from './reply';

export type Schema = Record<string, unknown>;

/** A route's true/false query parameters, by name, as the request gave them (absent: undefined). */
export type Flags = Record<string, boolean | undefined>;

/** A request's query read against its route's table: its flags, and the parameters the route does not use (as a header value). */
export interface QueryReading {
  flags: Flags;
  ignoredParams?: string;
}

/** Reads a request's query against the route it reached (the controllers' rules: controllers/params.ts); throws the 400 for a bad one. */
export type QueryReader = (query: RouteRequest['query'], route: RouteSpec, family: RouteFamily) => QueryReading;

/** What a route reads of a request, however it arrived (the binder's own matching, or Express). */
export interface RouteRequest {
  params: Record<string, string | string[] | undefined>;
  /** Parsed by Node's querystring (Express's 'simple' parser). */
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** Where the request's node calls are counted. */
  stats: RequestStats;
  /** Aborts when the client leaves (made on first use). */
  clientGone(): AbortSignal;
  /** A POST route's body, parsed JSON (read and bounded by the binder: http/requestBody.ts); undefined for GET. */
  body: unknown;
  /**
   * The route's flags, read from the query against the route's table once (a bad value is a
   * 400): by the binder before the handler starts, or on a `ownChecksFirst` route when its handler
   * first asks. The parameters the route does not use are named in the answer's
   * X-Ignored-Params by the binder.
   */
  flags(): Flags;
}

export type RouteHandler = (req: RouteRequest) => Promise<Answer | EventStreamReply>;

export interface QueryParameter {
  type: 'boolean' | 'integer' | 'string';
  default?: boolean;
  description: string;
  pattern?: string;
}

export interface PathParameter {
  description: string;
  schema?: Schema;
}

export interface HeaderParameter {
  name: string;
  description: string;
  schema: Schema;
}

export interface RouteSpec<Q extends string = string> {
  /** As Express writes it (`:name` for a path parameter), without the mount. */
  path: string;
  /** GET unless said; a POST route takes a JSON body (http/requestBody.ts). */
  method?: 'GET' | 'POST';
  /** For POST: the schema of its JSON body, by name. */
  requestBody?: string;
  summary: string;
  description?: string;
  query: readonly Q[];
  /** Query parameters the route cannot do without. */
  required?: readonly Q[];
  /** The schema of its 200 answer, by name. */
  response: string;
  /** 'events': a stream of Server-Sent Events, not JSON. */
  kind?: 'json' | 'events';
  /** Finalized answers are sent as immutable, with an ETag (304 when the client has it). */
  cacheable?: boolean;
  /** Answers say whether the block came from the cache (X-Cache). */
  cacheFact?: boolean;
  /** What each client error means on this route. */
  errors: { 400: string; 404?: string };
  /** Further statuses this route answers, and what they mean (a POST body's 413 and 415, say). */
  otherErrors?: Record<number, string>;
  /** When 503 means more than the node being away. */
  unavailable?: string;
  headers?: readonly HeaderParameter[];
  /** The OpenAPI tag, when not the family's. */
  tag?: string;
  /** A route of sidecar's that fastcar does not serve: it always answers 501 with this reason. */
  unserved?: string;
  /**
   * Its handler checks its own parameters (its path, or a list in its query) before the flags,
   * in sidecar's order, then asks for the flags. Every other route's query is read by the binder
   * before its handler starts.
   */
  ownChecksFirst?: true;
}

/** A family of routes: everything the server and the OpenAPI document need to know of it. */
export interface RouteFamily<Name extends string = string, Q extends string = string> {
  tag: string;
  /**
   * The version of the JSON its routes make, in their answers' ETags and cache tags: bumped
   * whenever the JSON for the same block changes, so old ETags stop matching.
   */
  formatVersion: number;
  routes: Record<Name, RouteSpec<Q>>;
  parameters: Record<Q, QueryParameter>;
  pathParameters: Record<string, PathParameter>;
  schemas: Record<string, Schema>;
  /** The 400 for `useRcBlock=true` on a route of the family that does not take it, when more can be said than that. */
  noRelayBlock?: string;
}

export type FamilyHandlers<Name extends string = string> = Record<Name, RouteHandler>;
