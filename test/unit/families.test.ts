// The one list of route families, as the binder serves it: match order, mounts, and
// every served route described in the OpenAPI document.
import { openApiDocument } from '../../src/controllers/families';
import { servedRoutes } from '../support/servedRoutes';

const served = servedRoutes();
const pathsAt = (mount: string) => served.filter((route) => route.mount === mount).map(({ spec }) => spec.path);

it("matches the follow family's fixed paths before a block by id", () => {
  const own = pathsAt('');
  expect(own.indexOf('/blocks/stream')).toBeGreaterThanOrEqual(0);
  expect(own.indexOf('/blocks/stream')).toBeLessThan(own.indexOf('/blocks/:blockId'));
});

it("serves every family on the relay chain too, but those that follow this chain or are Asset Hub's alone", () => {
  const own = pathsAt('');
  const relay = pathsAt('/rc');
  expect(relay).toContain('/blocks/:blockId');
  expect(relay).toContain('/accounts/:accountId/balance-info');
  expect(relay).not.toContain('/blocks/stream');
  expect(relay.some((path) => path.startsWith('/pallets/assets'))).toBe(false);
  expect(own.filter((path) => !relay.includes(path)).length).toBeGreaterThan(0);
  for (const path of relay) expect(own).toContain(path);
});

it('describes every route it serves in the OpenAPI document, and nothing else', () => {
  const document = openApiDocument('test') as { paths: Record<string, Record<string, unknown>> };
  const described = new Set(Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`)));
  const servedKeys = new Set(served.map(({ spec }) => `${(spec.method ?? 'GET').toLowerCase()} ${spec.path.replace(/:(\w+)/g, '{$1}')}`));
  expect([...servedKeys].filter((key) => !described.has(key))).toEqual([]);
  expect([...described].filter((key) => !servedKeys.has(key) && key !== 'get /health')).toEqual([]);
});
