// The OpenAPI 3.1 description of what fastcar serves, built from the route families
// the server is built from (routes.ts): a route added to a family's table is
// described here without a line written for it.
import { closed, ref } from './schemas';
import type { RouteFamily, RouteSpec, Schema } from './routes';

const COMMON_SCHEMAS: Record<string, Schema> = {
  Error: closed({ code: { type: 'integer' }, message: { type: 'string' } }),
  // Sidecar's body for a transaction a POST route could not use, without its stack (errorReply.ts).
  TransactionError: closed(
    {
      code: { type: 'integer' },
      error: { type: 'string' },
      transaction: { description: 'The `tx` as it was sent' },
      cause: { type: 'string' },
      at: closed({ hash: { type: 'string' }, height: { type: 'string' } }, ['hash']),
      reason: { type: 'string', description: "The node's rejection of a submission in one word (badProof, stale, future, alreadyImported, ...)" },
    },
    ['code', 'error', 'transaction', 'cause'],
  ),
  Health: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
};

const header = (description: string, schema: Schema = { type: 'string' }) => ({ description, schema });
const retryAfter = { 'Retry-After': header('Seconds to wait', { type: 'integer' }) };

const ACCOUNT_HEADERS = {
  'X-Rpc-Calls': header('Node calls this answer cost', { type: 'integer' }),
  'X-Rpc-Waves': header('Sequential rounds of node calls it took', { type: 'integer' }),
  'X-Ignored-Params': header('Query parameters this route does not use, ignored as sidecar ignores them'),
};

const errorAnswer = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers,
  content: { 'application/json': { schema: ref('Error') } },
});

function parametersOf(route: RouteSpec, family: RouteFamily): Record<string, unknown>[] {
  const inPath = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => {
    const spec = family.pathParameters[name];
    return { name, in: 'path', required: true, description: spec?.description ?? name, schema: spec?.schema ?? { type: 'string' } };
  });
  const inQuery = route.query.map((name) => {
    const spec = family.parameters[name];
    const schema: Schema = { type: spec.type };
    if (spec.default !== undefined) schema.default = spec.default;
    if (spec.pattern) schema.pattern = spec.pattern;
    if (spec.type === 'integer') schema.minimum = 0;
    return { name, in: 'query', required: route.required?.includes(name) ?? false, description: spec.description, schema };
  });
  const inHeaders = (route.headers ?? []).map(({ name, description, schema }) => ({ name, in: 'header', required: false, description, schema }));
  return [...inPath, ...inQuery, ...inHeaders];
}

function okAnswer(route: RouteSpec): Record<string, unknown> {
  if (route.kind === 'events') {
    // The protocol of every stream (sse.ts); `response` names the schema of a block event's data.
    const events = `Events: the blocks (id = height, no event name, data = ${route.response} JSON), node-unavailable and node-available (data = StreamNotice), resume (data = StreamResume, last).`;
    return {
      description: `${route.summary}. ${events}`,
      headers: { 'X-Accel-Buffering': header('Always `no`: balancers that honour it pass events on at once') },
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    };
  }
  const headers: Record<string, unknown> = { ...ACCOUNT_HEADERS };
  if (route.cacheFact) headers['X-Cache'] = header('hit or miss: whether the block answer came from the cache', { enum: ['hit', 'miss'] });
  if (route.cacheable) headers.ETag = header('Identifies a finalized answer; send it back in If-None-Match for a 304');
  return { description: route.summary, headers, content: { 'application/json': { schema: ref(route.response) } } };
}

/** A POST route's 400: a body it cannot read (Error), or a transaction it cannot use (TransactionError). */
const postBadRequest = (description: string) => ({
  description,
  content: { 'application/json': { schema: { oneOf: [ref('Error'), ref('TransactionError')] } } },
});

function operation(name: string, route: RouteSpec, family: RouteFamily): Record<string, unknown> {
  if (route.unserved) {
    const responses = { 501: errorAnswer(`Always: ${route.unserved}`) };
    return { operationId: name, summary: route.summary, tags: [route.tag ?? family.tag], parameters: parametersOf(route, family), responses };
  }
  const isPost = route.method === 'POST';
  const responses: Record<string, unknown> = {
    200: okAnswer(route),
    400: isPost ? postBadRequest(route.errors[400]) : errorAnswer(route.errors[400]),
    429: errorAnswer('Over the per-client rate limit', retryAfter),
    503: errorAnswer(route.unavailable ?? 'The node is unavailable', retryAfter),
    504: errorAnswer('The node did not answer in time'),
  };
  if (route.errors[404]) responses[404] = errorAnswer(route.errors[404]);
  for (const [status, meaning] of Object.entries(route.otherErrors ?? {})) responses[status] = errorAnswer(meaning);
  if (route.cacheable) responses[304] = { description: 'Not modified (If-None-Match matched the ETag)' };
  const described = route.description === undefined ? {} : { description: route.description };
  const body = route.requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: ref(route.requestBody) } } } } : {};
  const parameters = parametersOf(route, family);
  return { operationId: name, summary: route.summary, ...described, tags: [route.tag ?? family.tag], parameters, ...body, responses };
}

/** The document for `families`, each route under its path (with `{name}` for a path parameter). */
export function buildOpenApi(version: string, families: readonly RouteFamily[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, Schema> = { ...COMMON_SCHEMAS };
  for (const family of families) {
    for (const [name, route] of Object.entries(family.routes)) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      paths[path] = { ...(paths[path] as object | undefined), [route.method === 'POST' ? 'post' : 'get']: operation(name, route, family) };
    }
    Object.assign(schemas, family.schemas);
  }
  paths['/health'] = {
    get: {
      operationId: 'health',
      summary: 'Whether the node answers, the finalized height, cache figures (read at most once a second)',
      responses: {
        200: { description: 'Healthy', content: { 'application/json': { schema: ref('Health') } } },
        503: { description: 'The node is unavailable', content: { 'application/json': { schema: ref('Health') } } },
        429: errorAnswer('Over the per-client rate limit', retryAfter),
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'fastcar',
      version,
      description:
        "substrate-api-sidecar's API, field for field, answered with fewer node round trips. Errors are `{code, message}`; " +
        'a transaction a POST route cannot use, `{code, error, transaction, cause, at}` (TransactionError).',
    },
    paths,
    components: { schemas },
  };
}
