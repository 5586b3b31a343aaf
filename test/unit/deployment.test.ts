// No Docker engine runs here, so the deployment files are checked against the
// code: variables the config reads, ports, health checks, archive flags.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

import { CONFIG_VARIABLES, loadConfig } from '../../src/config';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  expose?: string[];
  ports?: string[];
  networks?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, unknown>;
}

const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service>; networks: Record<string, { internal?: boolean } | null> };
const fastcars = Object.entries(compose.services).filter(([, service]) => service.build === '.');

it('runs two fastcar instances, Redis, an archive node and a load balancer', () => {
  expect(fastcars.map(([name]) => name)).toEqual(['fastcar-1', 'fastcar-2']);
  expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['node', 'redis', 'balancer']));
});

it('keeps the archive node archival and its RPC on the internal network only', () => {
  const node = compose.services.node;
  expect(node.command).toEqual(expect.arrayContaining(['--state-pruning=archive', '--blocks-pruning=archive']));
  expect(node.ports).toBeUndefined();
  expect(node.networks).toEqual(['internal']);
  expect(compose.networks.internal?.internal).toBe(true);
});

describe.each(fastcars)('%s', (_name, service) => {
  const env = service.environment ?? {};

  it('sets only variables the code reads, and the code accepts their values', () => {
    for (const name of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(name);
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('points at the node service and the Redis service by their names and ports', () => {
    const config = loadConfig(env);
    const nodeUrl = new URL(config.nodeUrl!);
    expect(Object.keys(compose.services)).toContain(nodeUrl.hostname);
    expect(compose.services.node.command).toContain(`--rpc-port=${nodeUrl.port}`);
    expect(new URL(config.redisUrl!).hostname).toBe('redis');
  });

  it('listens where it is exposed and is health-checked on /health at that port', () => {
    const config = loadConfig(env);
    expect(config.host).toBe('0.0.0.0');
    expect(service.expose).toEqual([String(config.port)]);
    expect(service.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${config.port}/health`);
  });
});

it('balances over exactly the fastcar services, on the port they listen on', () => {
  const nginx = read('deploy/nginx.conf');
  const upstreams = [...nginx.matchAll(/server (\S+):(\d+)/g)].map((m) => [m[1], Number(m[2])]);
  expect(upstreams).toEqual(fastcars.map(([name, service]) => [name, loadConfig(service.environment).port]));
});

it('builds a multi-stage image that runs as a non-root user with a /health check', () => {
  const dockerfile = read('Dockerfile');
  expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
  expect(dockerfile).toMatch(/^USER node$/m);
  expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/health/);
  expect(dockerfile).toMatch(/CMD \["node", "dist\/src\/main.js"\]/);
  expect(JSON.parse(read('package.json')).main).toBe('dist/src/main.js');
});
