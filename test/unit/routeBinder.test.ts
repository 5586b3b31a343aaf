// The one door (src/http/routeBinder.ts), with a family of its own over a real HTTP
// server: plain spellings reach the handler without Express, every other spelling
// Express accepts reaches the same handler through it, paths are matched in the order
// families were added (a fixed path before a parameter), /v1 aliases every route, a
// family whose handlers cannot exist yet answers its error, and each request is logged
// once under its table path. The binder reads each route's query against its table: before
// the handler, or where an `ownChecksFirst` handler asks; and names what the route ignored.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { queryReader } from '../../src/controllers/params';
import { ApiError, badRequest } from '../../src/errors';
import { createApp } from '../../src/http/app';
import { RouteBinder } from '../../src/http/routeBinder';
import type { RequestLog } from '../../src/http/requestLog';
import type { FamilyHandlers, RouteFamily } from '../../src/http/routes';
import { createLogger } from '../../src/logger';
import { NodeUnavailableError } from '../../src/rpc/nodeErrors';

const spec = (path: string) => ({ path, summary: path, query: ['loud'], response: 'Thing', errors: { 400: 'bad' } });
const FAMILY: RouteFamily = {
  tag: 'things',
  formatVersion: 1,
  routes: { list: spec('/things'), fixed: spec('/things/special'), one: spec('/things/:thingId') },
  parameters: { loud: { type: 'boolean', description: 'louder' } },
  pathParameters: {},
  schemas: {},
  noRelayBlock: 'no relay blocks for things',
};
const LATER: RouteFamily = { ...FAMILY, routes: { late: spec('/later/:id') } };
const CHECKED: RouteFamily = {
  ...FAMILY,
  routes: {
    ownChecksFirst: { ...spec('/checked/:even'), ownChecksFirst: true },
    quiet: { ...spec('/quiet/:id'), query: [] },
    gone: { ...spec('/gone'), unserved: 'never served' },
  },
};
/** Requests a handler of CHECKED started. */
let started = 0;

let server: Server;
let base: string;
const logged: { route: string; status: number }[] = [];
/** Requests handed on to Express. */
let toExpress = 0;

beforeAll(async () => {
  const requestLog = { record: (_req: unknown, status: number, route: string) => logged.push({ route, status }) } as unknown as RequestLog;
  const routes = new RouteBinder({ requestLog, logger: createLogger('silent'), readQuery: queryReader({ strictParams: false }) });
  const answer =
    (name: string): FamilyHandlers[string] =>
    async (req) => {
      return { body: JSON.stringify({ name, params: req.params, query: req.query, flags: req.flags() }) };
    };
  routes.add('', FAMILY, { list: answer('list'), fixed: answer('fixed'), one: answer('one') });
  routes.add('', CHECKED, {
    async ownChecksFirst(req) {
      started += 1;
      if (Number(req.params.even) % 2 !== 0) throw badRequest('even numbers only');
      return { body: JSON.stringify({ flags: req.flags() }) };
    },
    async quiet() {
      started += 1;
      return { body: '{}' };
    },
    async gone() {
      throw new ApiError(501, 'never served');
    },
  });
  routes.add('', LATER, () => {
    throw new NodeUnavailableError('not connected yet');
  });
  const app = createApp({ logger: createLogger('silent'), routers: routes.expressRouters(), health: async () => ({ status: 200, body: {} }) });
  server = createServer(
    routes.listener((req, res) => {
      toExpress += 1;
      app(req, res);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function get(
  path: string,
): Promise<{ status: number; ignored: string | null; body: { name?: string; params?: unknown; query?: unknown; flags?: unknown; message?: string } }> {
  const response = await fetch(base + path);
  return { status: response.status, ignored: response.headers.get('x-ignored-params'), body: (await response.json()) as never };
}

describe('the route binder', () => {
  it('matches a fixed path before a parameter, as the table orders them, and passes parameters and query', async () => {
    expect((await get('/things/special')).body.name).toBe('fixed');
    expect((await get('/things/42?a=1&b=x')).body).toEqual({ name: 'one', params: { thingId: '42' }, query: { a: '1', b: 'x' }, flags: {} });
    expect((await get('/things')).body.name).toBe('list');
  });

  it('answers every other spelling Express accepts with the same handler', async () => {
    for (const path of ['/things/42/', '/Things/42', '/things/%34%32']) {
      expect([path, (await get(path)).body]).toEqual([path, { name: 'one', params: { thingId: '42' }, query: {}, flags: {} }]);
    }
  });

  it('serves plain spellings itself and leaves the rest to Express', async () => {
    const before = toExpress;
    await get('/things/42');
    await get('/v1/things/special?x=1');
    expect(toExpress).toBe(before);
    await get('/things/42/');
    await get('/things/%34%32');
    expect(toExpress).toBe(before + 2);
  });

  it('serves every route under /v1 too', async () => {
    expect((await get('/v1/things/7')).body).toEqual({ name: 'one', params: { thingId: '7' }, query: {}, flags: {} });
    expect((await get('/v1/things/special')).body.name).toBe('fixed');
  });

  it("answers a family whose handlers cannot exist yet with that error's status, by either door", async () => {
    for (const path of ['/later/1', '/later/1/']) {
      const { status, body } = await get(path);
      expect([path, status, body.message]).toEqual([path, 503, 'The node is unavailable; retry shortly.']);
    }
  });

  it('logs each request once, under its table path (unmatched paths too)', async () => {
    logged.length = 0;
    await get('/things/1');
    await get('/things/1/');
    await get('/nowhere');
    expect(logged).toEqual([
      { route: '/things/:thingId', status: 200 },
      { route: '/things/:thingId', status: 200 },
      { route: 'unmatched', status: 404 },
    ]);
  });

  it("reads each route's query against its table before the handler starts, by either door", async () => {
    for (const path of ['/things/1?loud=TRUE', '/things/1/?loud=true']) expect((await get(path)).body.flags).toEqual({ loud: true });
    const before = started;
    for (const path of ['/quiet/1?useRcBlock=true', '/quiet/1/?useRcBlock=true']) {
      const { status, body } = await get(path);
      expect([path, status, body.message]).toEqual([path, 400, 'no relay blocks for things']);
    }
    const bad = await get('/things/1?loud=maybe');
    expect([bad.status, bad.body.message]).toEqual([400, 'Query parameter: loud has an invalid boolean value of maybe']);
    expect(started).toBe(before);
  });

  it('on an ownChecksFirst route, checks the path before the query, and reads the query where the handler asks', async () => {
    expect((await get('/checked/3?loud=maybe')).body.message).toBe('even numbers only');
    expect((await get('/checked/4?loud=maybe')).body.message).toBe('Query parameter: loud has an invalid boolean value of maybe');
    expect((await get('/checked/4?loud=false')).body.flags).toEqual({ loud: false });
  });

  it('names the parameters a route ignores, whether or not its handler asked for its flags', async () => {
    expect((await get('/things/1?loud=true&colour=red')).ignored).toBe('colour');
    const quiet = await get('/quiet/1?colour=red&size=2');
    expect([quiet.status, quiet.ignored]).toEqual([200, 'colour, size']);
    expect((await get('/things/1?loud=true')).ignored).toBeNull();
  });

  it("answers an unserved route's 501 whatever its query", async () => {
    const { status, body } = await get('/gone?useRcBlock=true&loud=maybe');
    expect([status, body.message]).toEqual([501, 'never served']);
  });
});
