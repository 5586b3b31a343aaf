#!/usr/bin/env node
// `npm start`: serve the node named in the environment, or, with none named,
// start the bundled devnet and serve that. With WORKERS > 1 the primary
// process forks that many servers sharing the port (and, with REDIS_URL, a cache).
import cluster from 'node:cluster';

import { ConfigError, HELP, loadConfig, type Config } from './config';
import { createLogger, urlForLogs, type Logger } from './logger';
import { missingNodeFlags } from './nodeFlags';

interface Nodes {
  nodeUrl: string;
  relayUrl?: string;
  stop?: () => Promise<void>;
}

/** With no node named, the bundled devnet: Asset Hub on DEVNET_PORT and its relay chain on the port after it. */
async function startDevnetIfNeeded(config: Config, logger: Logger): Promise<Nodes> {
  if (config.nodeUrl) return { nodeUrl: config.nodeUrl, relayUrl: config.relayUrl };
  process.env.LOG_LEVEL ??= 'warn'; // chopsticks' own logger
  // Loaded only when needed: a deployment with a node never touches the devnet code.
  const { serveStoredChain } = await import('../devnet/cli');
  const { startRelayDevnet } = await import('../devnet/relayChain');
  const relayPort = config.devnetPort === 0 ? 0 : config.devnetPort + 1;
  const [{ devnet, manifest }, relay] = await Promise.all([
    serveStoredChain(config.devnetPort),
    config.relayUrl ? Promise.resolve(undefined) : startRelayDevnet({ port: relayPort }),
  ]);
  logger.info({ devnet: devnet.wsUrl, blocks: `0-${manifest.head.number}`, relay: relay?.wsUrl }, 'no node configured: serving the bundled devnet');
  return {
    nodeUrl: devnet.wsUrl,
    relayUrl: config.relayUrl ?? relay?.wsUrl,
    stop: async () => {
      await Promise.all([devnet.close(), relay?.close()]);
    },
  };
}

/** How long a stop may take before the process exits anyway (a close waiting on a node that never answers). */
const STOP_GRACE_MS = 10_000;

/**
 * Installed before a process says it is ready: a stop signal sent right after must find it
 * (else it kills without a close). One stop per process: Ctrl-C reaches a cluster's primary
 * and its workers at once, and the primary then signals each worker again.
 */
function onSignal(stop: () => Promise<unknown>) {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), STOP_GRACE_MS).unref();
    void stop().finally(() => process.exit(0));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

async function runPrimary(config: Config, logger: Logger, { nodeUrl, relayUrl, stop: stopDevnet }: Nodes) {
  // Workers run with fastcar's node flags even when the primary was started without them.
  cluster.setupPrimary({ execArgv: [...process.execArgv, ...missingNodeFlags()] });
  const workerEnv = { FASTCAR_NODE_URL: nodeUrl, ...(relayUrl ? { FASTCAR_RELAY_URL: relayUrl } : {}) };
  for (let i = 0; i < config.workers; i++) cluster.fork(workerEnv);
  let ready = 0;
  cluster.on('message', (_worker, message: unknown) => {
    if (message === 'ready' && ++ready === config.workers) {
      process.stdout.write(`fastcar ready: ${config.workers} workers on http://${config.host}:${config.port}/blocks/head (node ${urlForLogs(nodeUrl)})\n`);
    }
  });
  let stopping = false;
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    logger.error({ pid: worker.process.pid, code }, 'worker exited; starting another');
    cluster.fork(workerEnv);
  });
  onSignal(async () => {
    stopping = true;
    // Each worker is signalled itself (worker.kill cuts its channel first, and a worker without one
    // exits at once, its requests cut short) and waited for: the primary outlives its workers.
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    const exited = workers.map((worker) => (worker.isDead() ? Promise.resolve() : new Promise((resolve) => worker.once('exit', resolve))));
    for (const worker of workers) worker.process.kill('SIGTERM');
    await Promise.all(exited);
    await stopDevnet?.();
  });
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  if (process.argv[2] === 'proxy') {
    const { loadProxyConfig } = await import('./proxy/proxyConfig');
    const { startProxy } = await import('./proxy/startProxy');
    const proxyConfig = loadProxyConfig(process.argv.slice(3));
    const { proxy, address, reloader } = await startProxy(proxyConfig, createLogger(proxyConfig.logLevel));
    onSignal(() => proxy.close());
    // A reload: the config file and the environment read again (src/proxy/reload.ts).
    process.on('SIGHUP', () => void reloader.reload(() => loadProxyConfig(process.argv.slice(3))));
    process.stdout.write(`fastcar proxy ready: ws://${address} and http://${address} (upstreams ${proxyConfig.upstreams.map(urlForLogs).join(', ')})\n`);
    return;
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const missing = missingNodeFlags();
  if (missing.length > 0 && config.workers <= 1) {
    logger.warn({ missing }, "node started without fastcar's flags (npm start and the image pass them): hot code is recompiled after idle pauses");
    // Out now, not when the log's buffer fills: an operator starting it by hand should see it.
    logger.flush();
  }
  if (cluster.isWorker) {
    const { startFastcar } = await import('./server');
    const fastcar = await startFastcar({ ...config, nodeUrl: config.nodeUrl as string }, logger);
    onSignal(() => fastcar.close());
    process.send?.('ready');
    return;
  }
  const nodes = await startDevnetIfNeeded(config, logger);
  const { nodeUrl, relayUrl, stop: stopDevnet } = nodes;
  if (config.workers > 1) return runPrimary(config, logger, nodes);
  // Loaded where it runs, not at the top: a proxy's process, or a cluster's primary, never holds the REST server's modules.
  const { startFastcar } = await import('./server');
  const fastcar = await startFastcar({ ...config, nodeUrl, relayUrl }, logger);
  onSignal(async () => {
    await fastcar.close();
    await stopDevnet?.();
  });
  process.stdout.write(`fastcar ready: ${fastcar.url}/blocks/head (node ${urlForLogs(nodeUrl)})\n`);
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error?.constructor?.name === 'DevnetSetupError';
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${known ? message : `fastcar could not start: ${message}`}\n`);
  process.exit(1);
});
