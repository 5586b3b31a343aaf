// The Helm chart (deploy/helm/fastcar) as helm itself reads it: linted, rendered with its
// defaults and with every part on, and what it renders held to the code, as the compose
// file is (test/unit/deployment.test.ts): variables the config reads and accepts, ports,
// probes, the Services and selectors that tie the parts together. No cluster runs here.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';

import type { Devnet } from '../devnet/chain';
import { startFastcarOn } from '../harness/fastcar';
import { freePort } from '../harness/processes';
import { startTap, type RpcTap } from '../harness/rpcTap';
import { fastcarGroups, helmSchema, proxyGroups } from '../scripts/helmSchema';
import { CONFIG_VARIABLES, loadConfig } from '../src/config';
import { NODE_FLAGS } from '../src/nodeFlags';
import { loadProxyConfig, PROXY_VARIABLES } from '../src/proxy/proxyConfig';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';

const root = join(__dirname, '..');
const chart = join(root, 'deploy', 'helm', 'fastcar');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const readJson = (file: string) => JSON.parse(read(file));

interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}
interface Container {
  name: string;
  image: string;
  command: string[];
  env?: EnvVar[];
  ports: { name: string; containerPort: number }[];
  readinessProbe: Probe;
  livenessProbe: Probe;
  startupProbe?: Probe;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: each kind has its own spec; the tests read the fields they check.
  spec: any;
}

let helm: string;
let scratch: string;

beforeAll(() => {
  // Builds helm on a machine's first run (minutes), then answers from its cache at once.
  helm = execFileSync('bash', [join(root, 'scripts', 'ensure-helm.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n')
    .pop()!;
  if (!helm || !existsSync(helm)) throw new Error('no helm: scripts/ensure-helm.sh builds it with Go (go, or /usr/local/go/bin/go), which is missing');
  scratch = mkdtempSync(join(tmpdir(), 'fastcar-helm-'));
}, 900_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let files = 0;
function valuesFile(values: unknown): string {
  const file = join(scratch, `values-${files++}.yaml`);
  writeFileSync(file, typeof values === 'string' ? values : stringify(values));
  return file;
}

function runHelm(args: string[]): string {
  return execFileSync(helm, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function render(values: unknown = {}): Manifest[] {
  const text = runHelm(['template', 'fleet', chart, '-f', valuesFile(values)]);
  return parseAllDocuments(text)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

/** What helm says when it refuses to render. */
function refusal(values: unknown): string {
  try {
    render(values);
  } catch (error) {
    return String((error as { stderr?: string }).stderr);
  }
  return 'rendered';
}

const find = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${manifests.map((m) => `${m.kind} ${m.metadata.name}`).join(', ')}`);
  return found;
};
const containerOf = (deployment: Manifest): Container => deployment.spec.template.spec.containers[0];
const envOf = (container: Container) => Object.fromEntries((container.env ?? []).filter((v) => v.value !== undefined).map((v) => [v.name, v.value!]));
const portNumber = (container: Container, port: string | number) =>
  typeof port === 'number' ? port : container.ports.find((entry) => entry.name === port)?.containerPort;
const selects = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([name, value]) => labels[name] === value);

/** Kubernetes quantities in bytes (Mi, Gi) and in cores (m). */
const bytes = (quantity: string) => Number.parseFloat(quantity) * ({ Mi: 2 ** 20, Gi: 2 ** 30 }[quantity.replace(/^[\d.]+/, '')] ?? 1);
const MB = 1e6;

const ALL_ON = {
  proxy: { enabled: true, settings: { PROXY_UPSTREAMS: 'ws://archive-0.archive:9944,ws://archive-1.archive:9944' } },
  redis: { enabled: true },
  metrics: { serviceMonitor: { enabled: true } },
  fastcar: { secretEnv: { FASTCAR_RELAY_URL: { name: 'relay-node', key: 'url' } } },
};

describe('the chart as helm reads it', () => {
  it('lints clean with its defaults, and with the proxy, Redis and a ServiceMonitor on', () => {
    expect(runHelm(['lint', '--strict', chart])).toContain('0 chart(s) failed');
    expect(runHelm(['lint', '--strict', chart, '-f', valuesFile(ALL_ON)])).toContain('0 chart(s) failed');
  });

  it("is fastcar's version, as the image it runs is", () => {
    const meta = parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as { appVersion: string };
    expect(meta.appVersion).toBe(readJson('package.json').version);
  });

  it('lists every setting of fastcar and of the proxy in values.yaml, once each, by its own name', () => {
    const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as { fastcar: { settings: object }; proxy: { settings: object } };
    // A setting added to src/config.ts or src/proxy/proxyConfig.ts fails here until values.yaml names it.
    expect(Object.keys(values.fastcar.settings).sort()).toEqual(
      fastcarGroups()
        .map((group) => group.names[0])
        .sort(),
    );
    expect(Object.keys(values.proxy.settings).sort()).toEqual(
      proxyGroups()
        .map((group) => group.names[0])
        .sort(),
    );
  });

  it('has the values schema the settings tables give (npx tsx scripts/writeHelmSchema.ts writes it)', () => {
    expect(fastcarGroups().flatMap((group) => group.names)).toEqual(CONFIG_VARIABLES);
    expect(proxyGroups().flatMap((group) => group.names)).toEqual(PROXY_VARIABLES);
    expect(JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8'))).toEqual(helmSchema());
  });
});

describe('with its defaults', () => {
  let manifests: Manifest[];
  let fastcar: Container;
  beforeAll(() => {
    manifests = render();
    fastcar = containerOf(find(manifests, 'Deployment', 'fleet-fastcar'));
  });

  it('sets only variables fastcar reads, with values it accepts, listening where the pod is reached', () => {
    for (const variable of fastcar.env ?? []) expect(CONFIG_VARIABLES).toContain(variable.name);
    const config = loadConfig(envOf(fastcar));
    expect(config.host).toBe('0.0.0.0');
    expect(config.metricsHost).toBe('0.0.0.0');
    expect(portNumber(fastcar, 'http')).toBe(config.port);
    expect(portNumber(fastcar, 'metrics')).toBe(config.metricsPort);
    expect(fastcar.command).toEqual(['node', ...NODE_FLAGS, 'dist/src/main.js']);
  });

  it('takes a replica out of the Service on /health, and restarts it only when its own process stops answering', () => {
    const config = loadConfig(envOf(fastcar));
    const ready = fastcar.readinessProbe.httpGet!;
    expect([ready.path, portNumber(fastcar, ready.port)]).toEqual(['/health', config.port]);
    // /metrics is answered by the process without the node: a slow or absent node restarts nothing.
    for (const probe of [fastcar.livenessProbe, fastcar.startupProbe!]) {
      expect([probe.httpGet?.path, portNumber(fastcar, probe.httpGet!.port)]).toEqual(['/metrics', config.metricsPort]);
    }
  });

  // Helm reads values as YAML 1.1, where a bare off is false.
  it.each(['off', '"off"'])('falls back to a TCP check of the API port for liveness with metrics %s', (off) => {
    const container = containerOf(find(render(`fastcar:\n  settings:\n    FASTCAR_METRICS_PORT: ${off}\n`), 'Deployment', 'fleet-fastcar'));
    expect(loadConfig(envOf(container)).metricsPort).toBeUndefined();
    expect(container.livenessProbe).toEqual(expect.objectContaining({ tcpSocket: { port: 'http' } }));
    expect(container.ports.map((port) => port.name)).toEqual(['http']);
  });

  it('requests CPU and memory, with the memory limit above every peak the benchmarks measured', () => {
    const { requests = {}, limits = {} } = fastcar.resources;
    expect(requests.cpu).toMatch(/^\d+m?$/);
    // No CPU limit: a throttled event loop answers late, not less (values.yaml says why).
    expect(limits.cpu).toBeUndefined();
    const peaksMb = [
      readJson('bench/results/latest.json').peakRssMb.fastcar,
      readJson('bench/results/decode.json').figures.spamBlock.fastcarPeakRssMb,
      readJson('bench/results/stream.json').results['poll-fastcar'].rssMb.peak,
    ];
    expect(peaksMb.every((peak) => typeof peak === 'number')).toBe(true);
    expect(bytes(requests.memory)).toBeGreaterThan(Math.max(...peaksMb) * MB);
    expect(bytes(limits.memory)).toBeGreaterThan(bytes(requests.memory));
    // The in-process cache, the largest part, fits in the request with room for the rest.
    expect(bytes(requests.memory)).toBeGreaterThan(loadConfig(envOf(fastcar)).cacheMaxBytes + 100 * MB);
  });

  it('scales the Deployment on CPU, keeps all but one replica through disruptions, and serves the API on a Service of its own', () => {
    const deployment = find(manifests, 'Deployment', 'fleet-fastcar');
    const podLabels = deployment.spec.template.metadata.labels;
    const hpa = find(manifests, 'HorizontalPodAutoscaler', 'fleet-fastcar');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'fleet-fastcar' });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
    expect(deployment.spec.replicas).toBeUndefined(); // the autoscaler's to set
    const pdb = find(manifests, 'PodDisruptionBudget', 'fleet-fastcar');
    expect(selects(pdb.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(pdb.spec.maxUnavailable).toBeLessThan(hpa.spec.minReplicas);
    const api = find(manifests, 'Service', 'fleet-fastcar');
    expect(selects(api.spec.selector, podLabels)).toBe(true);
    expect(api.spec.ports.map((port: { targetPort: string }) => portNumber(fastcar, port.targetPort))).toEqual([loadConfig(envOf(fastcar)).port]);
    const metrics = find(manifests, 'Service', 'fleet-fastcar-metrics');
    expect(selects(metrics.spec.selector, podLabels)).toBe(true);
    expect(metrics.spec.ports.map((port: { targetPort: string }) => portNumber(fastcar, port.targetPort))).toEqual([loadConfig(envOf(fastcar)).metricsPort]);
  });

  it('runs no proxy, Redis or ServiceMonitor unless asked', () => {
    expect(manifests.map((manifest) => `${manifest.kind} ${manifest.metadata.name}`).sort()).toEqual([
      'Deployment fleet-fastcar',
      'HorizontalPodAutoscaler fleet-fastcar',
      'PodDisruptionBudget fleet-fastcar',
      'Service fleet-fastcar',
      'Service fleet-fastcar-metrics',
    ]);
  });
});

describe('every setting reachable from values', () => {
  /** Every setting set at once, each to a value of its own (the chart's own choices kept where it checks them). */
  const everySetting = (groups: { names: string[] }[], kept: Record<string, string>) =>
    Object.fromEntries(groups.map((group, i) => [group.names[0], kept[group.names[0]] ?? String(1000 + i)]));

  it("renders each of fastcar's settings into its variable, and nothing else", () => {
    const settings = everySetting(fastcarGroups(), { FASTCAR_HOST: '0.0.0.0', FASTCAR_METRICS_HOST: '0.0.0.0' });
    const env = envOf(containerOf(find(render({ fastcar: { settings } }), 'Deployment', 'fleet-fastcar')));
    expect(env).toEqual(settings);
  });

  it("renders each of the proxy's settings into its variable, and nothing else", () => {
    const settings = everySetting(proxyGroups(), { PROXY_HOST: '0.0.0.0', PROXY_UPSTREAMS: 'ws://archive:9944' });
    const env = envOf(containerOf(find(render({ proxy: { enabled: true, settings } }), 'Deployment', 'fleet-fastcar-proxy')));
    expect(env).toEqual(settings);
  });

  it('passes a large number from a values file through as written, not in float notation', () => {
    const env = envOf(containerOf(find(render({ fastcar: { settings: { FASTCAR_CACHE_MAX_BYTES: 268_435_456 } } }), 'Deployment', 'fleet-fastcar')));
    expect(env.FASTCAR_CACHE_MAX_BYTES).toBe('268435456');
  });
});

describe('with the proxy, Redis and a ServiceMonitor on', () => {
  let manifests: Manifest[];
  let fastcar: Container;
  let proxy: Container;
  beforeAll(() => {
    manifests = render(ALL_ON);
    fastcar = containerOf(find(manifests, 'Deployment', 'fleet-fastcar'));
    proxy = containerOf(find(manifests, 'Deployment', 'fleet-fastcar-proxy'));
  });

  it('runs the proxy from the same image with variables it reads, health-checked, its liveness apart from the nodes', () => {
    expect(proxy.image).toBe(fastcar.image);
    expect(proxy.command).toEqual(['node', ...NODE_FLAGS, 'dist/src/main.js', 'proxy']);
    for (const variable of proxy.env ?? []) expect(PROXY_VARIABLES).toContain(variable.name);
    const config = loadProxyConfig([], envOf(proxy));
    expect(config.host).toBe('0.0.0.0');
    expect(config.upstreams).toEqual(ALL_ON.proxy.settings.PROXY_UPSTREAMS.split(','));
    const ready = proxy.readinessProbe.httpGet!;
    const live = proxy.livenessProbe.httpGet!;
    expect([ready.path, portNumber(proxy, ready.port)]).toEqual(['/health', config.port]);
    expect([live.path, portNumber(proxy, live.port)]).toEqual(['/metrics', config.port]);
    expect(proxy.resources.requests?.memory).toBeDefined();
    // Its cache bound fits in what it asks for.
    expect(bytes(proxy.resources.requests!.memory)).toBeGreaterThan(config.cacheMaxBytes);
    const pdb = find(manifests, 'PodDisruptionBudget', 'fleet-fastcar-proxy');
    expect(selects(pdb.spec.selector.matchLabels, find(manifests, 'Deployment', 'fleet-fastcar-proxy').spec.template.metadata.labels)).toBe(true);
  });

  it("points fastcar at the proxy's Service and the chart's Redis, by their names and ports", () => {
    for (const variable of fastcar.env ?? []) expect(CONFIG_VARIABLES).toContain(variable.name);
    const config = loadConfig(envOf(fastcar));
    const node = new URL(config.nodeUrl!);
    const proxyService = find(manifests, 'Service', node.hostname);
    expect(selects(proxyService.spec.selector, find(manifests, 'Deployment', 'fleet-fastcar-proxy').spec.template.metadata.labels)).toBe(true);
    expect(proxyService.spec.ports.map((port: { port: number }) => port.port)).toEqual([Number(node.port)]);
    expect(Number(node.port)).toBe(loadProxyConfig([], envOf(proxy)).port);
    const redisUrl = new URL(config.redisUrl!);
    const redisService = find(manifests, 'Service', redisUrl.hostname);
    const redis = find(manifests, 'Deployment', redisUrl.hostname);
    expect(selects(redisService.spec.selector, redis.spec.template.metadata.labels)).toBe(true);
    expect(redisService.spec.ports.map((port: { port: number }) => port.port)).toEqual([Number(redisUrl.port)]);
    // A variable from a Secret names the Secret and its key, never the value.
    expect(fastcar.env).toContainEqual({ name: 'FASTCAR_RELAY_URL', valueFrom: { secretKeyRef: { name: 'relay-node', key: 'url' } } });
  });

  it('runs Redis as the compose file does: the same image, a cache only, evicting the least recently used', () => {
    const redis = containerOf(find(manifests, 'Deployment', 'fleet-fastcar-redis'));
    const compose = parse(read('docker-compose.yml')) as { services: { redis: { image: string; command: string[] } } };
    expect(redis.image).toBe(compose.services.redis.image);
    const args = redis.command.join(' ');
    expect(args).toContain('--maxmemory-policy allkeys-lru');
    expect(args).toContain('--appendonly no');
    expect(redis.resources.requests?.memory).toBeDefined();
  });

  it('has Prometheus scrape every replica and proxy on their metrics ports, and never the API Service', () => {
    const monitor = find(manifests, 'ServiceMonitor', 'fleet-fastcar');
    const selector = monitor.spec.selector.matchLabels;
    const scraped = manifests.filter((manifest) => manifest.kind === 'Service' && selects(selector, manifest.metadata.labels));
    expect(scraped.map((service) => service.metadata.name).sort()).toEqual(['fleet-fastcar-metrics', 'fleet-fastcar-proxy']);
    for (const endpoint of monitor.spec.endpoints) expect(endpoint.path).toBe('/metrics');
    const portNames = scraped.flatMap((service) => service.spec.ports.map((port: { name: string }) => port.name));
    expect(monitor.spec.endpoints.map((endpoint: { port: string }) => endpoint.port).sort()).toEqual(portNames.sort());
  });
});

describe('values that cannot work are refused before anything is installed', () => {
  it.each([
    ['a variable no part reads', { fastcar: { settings: { FASTCAR_RATE_LIMT_PER_IP: 5 } } }, "additional properties 'FASTCAR_RATE_LIMT_PER_IP' not allowed"],
    ['the proxy without nodes', { proxy: { enabled: true } }, 'set proxy.settings.PROXY_UPSTREAMS'],
    [
      'the proxy and a node URL of its own',
      { proxy: { enabled: true, settings: { PROXY_UPSTREAMS: 'ws://a:9944' } }, fastcar: { settings: { FASTCAR_NODE_URL: 'ws://b:9944' } } },
      'leave FASTCAR_NODE_URL unset',
    ],
    ["the chart's Redis and another", { redis: { enabled: true }, fastcar: { secretEnv: { REDIS_URL: { name: 'r', key: 'url' } } } }, 'leave REDIS_URL unset'],
    ['fastcar bound to loopback', { fastcar: { settings: { FASTCAR_HOST: '127.0.0.1' } } }, 'must listen on 0.0.0.0'],
    [
      'a ServiceMonitor with metrics off',
      { metrics: { serviceMonitor: { enabled: true } }, fastcar: { settings: { FASTCAR_METRICS_PORT: 'off' } } },
      "needs fastcar's metrics port",
    ],
  ])('%s', (_what, values, message) => {
    expect(refusal(values)).toContain(message);
  });
});

describe("the probes it renders, asked of a real fastcar with the chart's settings", () => {
  let devnet: Devnet;
  let relay: RpcTap;
  let fastcar: Fastcar;
  let container: Container;
  beforeAll(async () => {
    container = containerOf(find(render(), 'Deployment', 'fleet-fastcar'));
    ({ devnet } = await startDevnet());
    relay = await startTap(devnet.wsUrl, 0, await freePort());
    // The pod's settings, on free loopback ports here.
    fastcar = await startFastcarOn(relay.url, { ...envOf(container), FASTCAR_HOST: '127.0.0.1', FASTCAR_PORT: '0', FASTCAR_METRICS_PORT: '0' });
  }, 120_000);
  afterAll(async () => {
    await fastcar?.close();
    await relay?.close();
    await devnet?.close();
  });

  /** A kubelet's HTTP probe: success is a 2xx or 3xx within the probe's timeout. */
  async function ask(probe: Probe, timeoutSeconds: number): Promise<number | string> {
    const base = probe.httpGet!.port === 'metrics' ? fastcar.metricsUrl! : fastcar.url;
    try {
      const answer = await fetch(`${base}${probe.httpGet!.path}`, { signal: AbortSignal.timeout(timeoutSeconds * 1000) });
      await answer.arrayBuffer();
      return answer.status;
    } catch (error) {
      return (error as Error).name;
    }
  }
  const probes = () => ({
    readiness: ask(container.readinessProbe, 3),
    liveness: ask(container.livenessProbe, 5),
    startup: ask(container.startupProbe!, 1),
  });
  const settled = async (asked: Record<string, Promise<number | string>>) =>
    Object.fromEntries(await Promise.all(Object.entries(asked).map(async ([name, answer]) => [name, await answer])));
  /** /health keeps a reading for a second. */
  const pastHealthMemory = () => new Promise((resolve) => setTimeout(resolve, 1100));

  it('all pass with the node there', async () => {
    expect(await settled(probes())).toEqual({ readiness: 200, liveness: 200, startup: 200 });
  });

  it('a slow node keeps the replica ready and alive', async () => {
    relay.setDelay(2500);
    try {
      await pastHealthMemory();
      expect(await settled(probes())).toEqual({ readiness: 200, liveness: 200, startup: 200 });
    } finally {
      relay.setDelay(0);
    }
  });

  it('with the node gone the replica leaves the Service (readiness 503) and is not restarted (liveness 200)', async () => {
    await relay.close();
    await pastHealthMemory();
    expect(await settled(probes())).toEqual({ readiness: 503, liveness: 200, startup: 200 });
  });
});
