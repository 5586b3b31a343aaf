// The OpenAPI 3.1 description of what fastcar serves, built from the route table
// the router is built from (src/controllers/blockRoutes.ts). Response schemas
// are closed (no properties beyond those listed), so a field added or renamed
// without documenting it fails the schema test against real answers.
import { BLOCK_ROUTES, QUERY_PARAMETERS, type ResponseName, type RouteSpec } from '../controllers/blocks/routes';
import { FOLLOW_SCHEMAS, followPaths } from './followOpenApi';

type Schema = Record<string, unknown>;

const hex = { type: 'string', pattern: '^0x[0-9a-fA-F]*$' };
const hash = { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' };
const decimal = { type: 'string', pattern: '^[0-9]+$' };
const anyJson = {};
const closed = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const SCHEMAS: Record<string, Schema> = {
  Error: closed({ code: { type: 'integer' }, message: { type: 'string' } }),
  MethodName: closed({ pallet: { type: 'string' }, method: { type: 'string' } }),
  Event: closed({ method: ref('MethodName'), data: { type: 'array' }, docs: { type: 'string' } }, ['method', 'data']),
  FeeInfo: {
    oneOf: [
      closed({}, []),
      closed({ weight: anyJson, class: { type: 'string' }, partialFee: decimal, kind: { enum: ['fromEvent', 'preDispatch', 'postDispatch'] } }),
      closed({ error: { type: 'string' } }),
    ],
  },
  Extrinsic: closed(
    {
      method: ref('MethodName'),
      signature: { oneOf: [{ type: 'null' }, closed({ signature: hex, signer: anyJson })] },
      nonce: { oneOf: [{ type: 'null' }, decimal] },
      args: { type: 'object' },
      tip: { oneOf: [{ type: 'null' }, decimal] },
      hash,
      info: ref('FeeInfo'),
      era: { type: 'object' },
      events: { type: 'array', items: ref('Event') },
      success: { type: 'boolean' },
      paysFee: { type: 'boolean' },
      version: {
        const: 5,
        description:
          'Only on a general (v5) transaction, which sidecar cannot show: its signature comes from a signing extension (null when none signed it, the origin then being set by its authorization), nonce, tip and era from the extensions of its version',
      },
      transactionExtensionVersion: { type: 'integer', minimum: 0, maximum: 255, description: 'Only on a general transaction: the version of the extension list it carries (the metadata lists one per version)' },
      docs: { type: 'string' },
    },
    ['method', 'signature', 'nonce', 'args', 'tip', 'hash', 'info', 'era', 'events', 'success', 'paysFee'],
  ),
  Log: closed({ type: { type: 'string' }, index: decimal, value: anyJson }),
  XcmMessages: closed({ horizontalMessages: { type: 'array' }, downwardMessages: { type: 'array' }, upwardMessages: { type: 'array' } }),
  Block: closed(
    {
      number: decimal,
      hash,
      parentHash: hash,
      stateRoot: hash,
      extrinsicsRoot: hash,
      authorId: { oneOf: [{ type: 'null' }, { type: 'string' }] },
      logs: { type: 'array', items: ref('Log') },
      onInitialize: closed({ events: { type: 'array', items: ref('Event') } }),
      extrinsics: { type: 'array', items: ref('Extrinsic') },
      onFinalize: closed({ events: { type: 'array', items: ref('Event') } }),
      finalized: { type: 'boolean' },
      decodedXcmMsgs: ref('XcmMessages'),
    },
    // authorId: absent on the genesis block, as sidecar leaves it out there.
    ['number', 'hash', 'parentHash', 'stateRoot', 'extrinsicsRoot', 'logs', 'onInitialize', 'extrinsics', 'onFinalize'],
  ),
  BlockList: { type: 'array', items: ref('Block') },
  Header: closed({ parentHash: hash, number: decimal, stateRoot: hash, extrinsicsRoot: hash, digest: closed({ logs: { type: 'array' } }) }),
  ExtrinsicAt: closed({ at: closed({ height: decimal, hash }), extrinsics: ref('Extrinsic') }),
  RawBlock: closed({ parentHash: hash, number: hex, stateRoot: hash, extrinsicRoot: hash, digest: closed({ logs: { type: 'array' } }), extrinsics: { type: 'array', items: hex } }),
  ParaInclusions: closed({
    at: closed({ hash, height: decimal }),
    inclusions: {
      type: 'array',
      items: closed({
        paraId: decimal,
        paraBlockNumber: decimal,
        paraBlockHash: hash,
        descriptor: closed({
          relayParent: hash,
          persistedValidationDataHash: hash,
          povHash: hash,
          erasureRoot: hash,
          paraHead: hash,
          validationCodeHash: hash,
        }),
        commitmentsHash: hash,
        coreIndex: decimal,
        groupIndex: decimal,
      }),
    },
  }),
  Health: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
};

const header = (description: string, schema: Schema = { type: 'string' }) => ({ description, schema });

const COMMON_HEADERS = {
  'X-Rpc-Calls': header('Node calls this answer cost', { type: 'integer' }),
  'X-Rpc-Waves': header('Sequential rounds of node calls it took', { type: 'integer' }),
  'X-Ignored-Params': header('Query parameters this route does not use, ignored as sidecar ignores them'),
};

const errorAnswer = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers,
  content: { 'application/json': { schema: ref('Error') } },
});

function operation(name: string, route: RouteSpec) {
  const pathParameters = [...route.path.matchAll(/:(\w+)/g)].map(([, parameter]) => ({
    name: parameter,
    in: 'path',
    required: true,
    description: parameter === 'blockId' ? 'A height (decimal) or a block hash (0x and 64 hex digits)' : 'Index of the extrinsic in the block',
    schema: { type: 'string' },
  }));
  const queryParameters = route.query.map((parameter) => {
    const spec = QUERY_PARAMETERS[parameter];
    const schema: Schema = { type: spec.type };
    if (spec.default !== undefined) schema.default = spec.default;
    if (spec.pattern) schema.pattern = spec.pattern;
    return { name: parameter, in: 'query', required: parameter === 'range', description: spec.description, schema };
  });
  const okHeaders: Record<string, unknown> = { ...COMMON_HEADERS };
  if (route.response === 'Block' || route.response === 'BlockList') okHeaders['X-Cache'] = header('hit or miss: whether the block answer came from the cache', { enum: ['hit', 'miss'] });
  if (route.cacheable) okHeaders.ETag = header('Identifies a finalized answer; send it back in If-None-Match for a 304');
  const responses: Record<string, unknown> = {
    200: { description: route.summary, headers: okHeaders, content: { 'application/json': { schema: ref(route.response as ResponseName) } } },
    400: errorAnswer('Malformed id, index, range or parameter value; a height beyond the head'),
    404: errorAnswer('No block with that hash'),
    429: errorAnswer('Over the per-client rate limit', { 'Retry-After': header('Seconds to wait', { type: 'integer' }) }),
    503: errorAnswer('The node is unavailable', { 'Retry-After': header('Seconds to wait', { type: 'integer' }) }),
    504: errorAnswer('The node did not answer in time'),
  };
  if (route.cacheable) responses[304] = { description: 'Not modified (If-None-Match matched the ETag)' };
  return { operationId: name, summary: route.summary, tags: ['blocks'], parameters: [...pathParameters, ...queryParameters], responses };
}

export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [name, route] of Object.entries(BLOCK_ROUTES)) {
    paths[route.path.replace(/:(\w+)/g, '{$1}')] = { get: operation(name, route) };
  }
  Object.assign(paths, followPaths());
  paths['/health'] = {
    get: {
      operationId: 'health',
      summary: 'Whether the node answers, the finalized height, cache figures (read at most once a second)',
      responses: {
        200: { description: 'Healthy', content: { 'application/json': { schema: ref('Health') } } },
        503: { description: 'The node is unavailable', content: { 'application/json': { schema: ref('Health') } } },
        429: errorAnswer('Over the per-client rate limit', { 'Retry-After': header('Seconds to wait', { type: 'integer' }) }),
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'fastcar',
      version,
      description: "substrate-api-sidecar's `/blocks` API, field for field, answered with fewer node round trips. Errors are `{code, message}`.",
    },
    paths,
    components: { schemas: { ...SCHEMAS, ...FOLLOW_SCHEMAS } },
  };
}
