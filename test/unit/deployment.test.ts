// No Docker engine runs here, so the deployment files are checked against the
// code: variables the config reads, ports, health checks, archive flags.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

import { CONFIG_VARIABLES, loadConfig } from '../../src/config';
import { NODE_FLAGS } from '../../src/nodeFlags';
import { loadProxyConfig, PROXY_VARIABLES } from '../../src/proxy/proxyConfig';

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
  restart?: string;
  volumes?: string[];
}

const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service>; networks: Record<string, { internal?: boolean } | null> };
const ours = Object.entries(compose.services).filter(([, service]) => service.build === '.');
const isProxy = (service: Service) => service.command?.includes('proxy') ?? false;
const fastcars = ours.filter(([, service]) => !isProxy(service));
const [proxyName, proxy] = ours.find(([, service]) => isProxy(service)) ?? ['', {} as Service];

it('runs two fastcar instances, the caching proxy, Redis, an archive node and a load balancer', () => {
  expect(fastcars.map(([name]) => name)).toEqual(['fastcar-1', 'fastcar-2']);
  expect(proxyName).toBe('rpc-proxy');
  expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['node', 'redis', 'balancer']));
});

it('restarts every service by itself after a crash', () => {
  for (const [name, service] of Object.entries(compose.services)) {
    expect({ name, restart: service.restart }).toEqual({ name, restart: expect.stringMatching(/^(always|unless-stopped|on-failure)/) });
  }
});

it('runs the proxy from the image with variables it reads, in front of the node, health-checked', () => {
  const env = proxy.environment ?? {};
  for (const name of Object.keys(env)) expect(PROXY_VARIABLES).toContain(name);
  const config = loadProxyConfig([], env);
  expect(proxy.command).toEqual(['node', ...NODE_FLAGS, 'dist/src/main.js', 'proxy']);
  expect(config.host).toBe('0.0.0.0');
  expect(proxy.expose).toEqual([String(config.port)]);
  expect(proxy.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${config.port}/health`);
  for (const upstream of config.upstreams) {
    const url = new URL(upstream);
    expect(url.hostname).toBe('node');
    expect(compose.services.node.command).toContain(`--rpc-port=${url.port}`);
  }
  expect(proxy.networks).toEqual(['internal']);
});

it('keeps the archive node archival and its RPC on the internal network only', () => {
  const node = compose.services.node;
  expect(node.command).toEqual(expect.arrayContaining(['--state-pruning=archive', '--blocks-pruning=archive']));
  expect(node.ports).toBeUndefined();
  expect(node.networks).toEqual(['internal']);
  expect(compose.networks.internal?.internal).toBe(true);
});

describe.each(fastcars)('%s', (name, service) => {
  const env = service.environment ?? {};

  it('sets only variables the code reads, and the code accepts their values', () => {
    for (const variable of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(variable);
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('reaches the node through the proxy service, and Redis, by their names and ports', () => {
    const config = loadConfig(env);
    const nodeUrl = new URL(config.nodeUrl!);
    expect(nodeUrl.hostname).toBe(proxyName);
    expect(nodeUrl.port).toBe(String(loadProxyConfig([], proxy.environment).port));
    expect(service.depends_on).toHaveProperty(proxyName);
    expect(new URL(config.redisUrl!).hostname).toBe('redis');
  });

  it('reads client addresses from the header the balancer appends to, and nothing more', () => {
    const config = loadConfig(env);
    const forwards = /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/.test(read('deploy/nginx.conf'));
    expect(config.trustedProxies).toBe(forwards ? 1 : 0);
  });

  it('listens where it is exposed and is health-checked on /health at that port', () => {
    const config = loadConfig(env);
    expect(config.host).toBe('0.0.0.0');
    expect(service.expose).toEqual([String(config.port), String(config.metricsPort)]);
    expect(service.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${config.port}/health`);
  });

  it('serves /metrics on a port of its own, which Prometheus scrapes and the balancer does not reach', () => {
    const config = loadConfig(env);
    expect(config.metricsPort).toBeDefined();
    expect(config.metricsPort).not.toBe(config.port);
    expect(config.metricsHost).toBe('0.0.0.0'); // reachable on the internal network
    const scrape = parse(read('deploy/prometheus.yml')) as {
      scrape_configs: { job_name: string; metrics_path: string; static_configs: { targets: string[] }[] }[];
    };
    const job = scrape.scrape_configs.find((entry) => entry.job_name === 'fastcar');
    expect(job?.metrics_path).toBe('/metrics');
    expect(job?.static_configs.flatMap((entry) => entry.targets)).toContain(`${name}:${config.metricsPort}`);
    expect(service.ports).toBeUndefined();
  });
});

it('balances over exactly the fastcar services, on the port they listen on', () => {
  const nginx = read('deploy/nginx.conf');
  const upstreams = [...nginx.matchAll(/server (\S+):(\d+)/g)].map((m) => [m[1], Number(m[2])]);
  expect(upstreams).toEqual(fastcars.map(([name, service]) => [name, loadConfig(service.environment).port]));
});

it('passes block streams on as they come: no buffering, idle ones kept past the heartbeat', () => {
  const nginx = read('deploy/nginx.conf');
  const [, pattern, body] = /location ~ (\S+) \{([^}]*)\}/.exec(nginx) ?? [];
  const streams = new RegExp(pattern);
  for (const path of ['/blocks/stream', '/v1/blocks/stream', '/blocks/head/header/stream', '/v1/blocks/head/header/stream'])
    expect([path, streams.test(path)]).toEqual([path, true]);
  for (const path of ['/blocks/17', '/blocks/head', '/blocks/head/header', '/extrinsics/0x00']) expect([path, streams.test(path)]).toEqual([path, false]);
  expect(body).toContain('proxy_buffering off;');
  expect(body).toContain('proxy_pass http://fastcar;');
  const [, hours] = /proxy_read_timeout (\d+)h;/.exec(body) ?? [];
  expect(Number(hours) * 3600).toBeGreaterThan(15);
});

it('copies into the image only what exists, and everything the build imports', () => {
  const dockerfile = read('Dockerfile');
  const copied = [...dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)].flatMap((m) => m[1].split(' '));
  for (const path of copied) expect([path, existsSync(join(root, path))]).toEqual([path, true]);
  // devnet/report.ts, built with the rest, imports the shared harness.
  expect(copied).toContain('harness');
});

it('builds a multi-stage image that runs as a non-root user with a /health check', () => {
  const dockerfile = read('Dockerfile');
  expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
  expect(dockerfile).toMatch(/^USER node$/m);
  expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/health/);
  expect(dockerfile).toContain(`CMD ${JSON.stringify(['node', ...NODE_FLAGS, 'dist/src/main.js']).replaceAll(',', ', ')}`);
  expect(JSON.parse(read('package.json')).main).toBe('dist/src/main.js');
});

it('starts fastcar with its node flags wherever it is launched: npm start, the image, the harness', () => {
  expect(NODE_FLAGS.length).toBeGreaterThan(0);
  expect(JSON.parse(read('package.json')).scripts.start).toBe(`node ${NODE_FLAGS.join(' ')} dist/src/main.js`);
  // The harness's processes (tests, benches: all start fastcar through it) run as a deployment does.
  expect(read('harness/processes.ts')).toMatch(/\.\.\.NODE_FLAGS/);
});

describe('the compose file for a hosted provider (deploy/hosted-provider.compose.yml)', () => {
  const hosted = parse(read('deploy/hosted-provider.compose.yml')) as { services: Record<string, Service> };
  const instances = Object.entries(hosted.services).filter(([, service]) => service.build === '..');
  /** Compose's `${NAME:-default}`, as compose reads it with NAME unset. */
  const resolved = (env: Record<string, string>) =>
    Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]));

  it('runs fastcar instances only on variables the code reads and accepts, on an https:// node with the provider limits set', () => {
    expect(instances.map(([name]) => name)).toEqual(['fastcar-1', 'fastcar-2']);
    for (const [, service] of instances) {
      const env = service.environment ?? {};
      for (const name of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(name);
      const config = loadConfig(resolved(env));
      expect(new URL(config.nodeUrl!).protocol).toBe('https:');
      // The provider's URL (and key) comes from the environment, never from this file.
      expect(env.FASTCAR_NODE_URL).toMatch(/^\$\{PROVIDER_RPC_URL:-/);
      expect(config.rpcMaxInFlight).toBeLessThan(loadConfig({}).rpcMaxInFlight);
      expect(config.rpcRatePerSecond).toBeGreaterThan(0);
      expect(new URL(config.redisUrl!).hostname).toBe('redis');
      expect(service.networks).toContain('public');
      expect(service.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${config.port}/health`);
    }
  });

  it('balances over exactly its fastcar services with the shared nginx.conf', () => {
    const nginx = read('deploy/nginx.conf');
    const upstreams = [...nginx.matchAll(/server (\S+):(\d+)/g)].map((m) => [m[1], Number(m[2])]);
    expect(upstreams).toEqual(instances.map(([name, service]) => [name, loadConfig(resolved(service.environment ?? {})).port]));
    expect(hosted.services.balancer.volumes ?? []).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
  });
});
