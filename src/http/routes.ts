// What a route family is, as data: its routes (path, query parameters, answer), the
// parameters' meanings and the answers' schemas. Controllers declare a family and
// its handlers; the HTTP layer serves them (routeBinder.ts) and describes them
// (openapi.ts) from the same declaration, so neither can drift from the other.
import type { IncomingHttpHeaders } from 'node:http';

import type { RequestStats } from '../rpc/requestStats';
import type { Answer, EventStreamReply } from './reply';

export type Schema = Record<string, unknown>;

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
}

export type FamilyHandlers<Name extends string = string> = Record<Name, RouteHandler>;
