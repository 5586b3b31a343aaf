// The OpenAPI description of the routes that follow the chain (streams, extrinsics
// by hash), built from their table (src/controllers/followRoutes.ts) and merged into
// the document src/http/openapi.ts builds. Schemas name the shared ones (Error,
// Extrinsic) by reference.
import { FOLLOW_PARAMETERS, FOLLOW_ROUTES, type FollowRouteSpec } from '../controllers/follow/routes';

type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const decimal = { type: 'string', pattern: '^[0-9]+$' };
const hash = { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' };
const closed = (properties: Record<string, unknown>): Schema => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

export const FOLLOW_SCHEMAS: Record<string, Schema> = {
  ExtrinsicFound: closed({ blockNumber: decimal, blockHash: hash, index: decimal, extrinsic: ref('Extrinsic') }),
  /** The data of a `resume` event, the last one a stream the server ends sends. */
  StreamResume: closed({
    from: { type: 'integer', description: 'The first height this client has not received: reconnect with from set to it (or Last-Event-ID one below).' },
    reason: { enum: ['lagging', 'stalled', 'closing'] },
    message: { type: 'string' },
  }),
  /** The data of `node-unavailable` and `node-available` events. */
  StreamNotice: closed({ message: { type: 'string' } }),
};

const header = (description: string, schema: Schema = { type: 'string' }) => ({ description, schema });
const errorAnswer = (description: string, headers: Record<string, unknown> = {}) => ({ description, headers, content: { 'application/json': { schema: ref('Error') } } });
const retryAfter = { 'Retry-After': header('Seconds to wait', { type: 'integer' }) };

function operation(name: string, route: FollowRouteSpec) {
  const isStream = route.response !== 'ExtrinsicFound';
  const parameters: Record<string, unknown>[] = [...route.path.matchAll(/:(\w+)/g)].map(([, parameter]) => ({
    name: parameter,
    in: 'path',
    required: true,
    description: 'The extrinsic hash (0x and 64 hex digits)',
    schema: hash,
  }));
  for (const name of route.query) {
    const spec = FOLLOW_PARAMETERS[name];
    const schema: Schema = { type: spec.type };
    if (spec.default !== undefined) schema.default = spec.default;
    if (spec.type === 'integer') schema.minimum = 0;
    parameters.push({ name, in: 'query', required: false, description: spec.description, schema });
  }
  if (isStream) {
    parameters.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'The id (height) of the last event received: the stream resumes with the height after it. Sent by EventSource when it reconnects; wins over `from`.',
      schema: { type: 'integer', minimum: 0 },
    });
  }
  const ok = isStream
    ? {
        description: `${route.summary}. Events: the blocks (id = height, no event name, data = ${route.response === 'HeaderEvents' ? 'Header' : 'Block'} JSON), node-unavailable and node-available (data = StreamNotice), resume (data = StreamResume, last).`,
        headers: { 'X-Accel-Buffering': header('Always `no`: balancers that honour it pass events on at once') },
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      }
    : {
        description: route.summary,
        headers: { 'X-Ignored-Params': header('Query parameters this route does not use, ignored as sidecar ignores them') },
        content: { 'application/json': { schema: ref('ExtrinsicFound') } },
      };
  const responses: Record<string, unknown> = {
    200: ok,
    400: errorAnswer(isStream ? 'A malformed `from`, Last-Event-ID or flag' : 'A malformed hash, `from`/`to` or flag; a window too long or past the finalized head'),
    ...(isStream ? {} : { 404: errorAnswer('Not in the heights searched (the message names them)') }),
    429: errorAnswer('Over the per-client rate limit', retryAfter),
    503: errorAnswer(isStream ? 'The node is unavailable, or this instance has FASTCAR_MAX_STREAMS streams open' : 'The node is unavailable', retryAfter),
  };
  return { operationId: name, summary: route.summary, description: route.description, tags: [isStream ? 'blocks' : 'extrinsics'], parameters, responses };
}

/** The paths of the follow routes, keyed as OpenAPI writes them. */
export function followPaths(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [name, route] of Object.entries(FOLLOW_ROUTES)) paths[route.path.replace(/:(\w+)/g, '{$1}')] = { get: operation(name, route) };
  return paths;
}
