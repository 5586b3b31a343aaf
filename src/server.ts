// Wires the layers together: node client -> services -> controllers -> HTTP.
import { createServer, type Server } from 'node:http';

import { createApp } from './http/app';
import { BuildLeases } from './cache/buildLeases';
import { REDIS_CONNECT_MS } from './cache/redisLiveness';
import { RedisStore } from './cache/redisStore';
import { sharedFor } from './cache/sharedFor';
import { TieredCache } from './cache/tieredCache';
import type { Config } from './config';
import type { BlockHandlerOptions } from './controllers/blocks/handlers';
import { openApiDocument, serveFamilies, unconfiguredRelayRouter } from './controllers/families';
import { queryReader } from './controllers/params';
import { urlForLogs, type Logger } from './logger';
import { Metrics } from './metrics';
import { exposeChainFigures } from './chainFigures';
import { VERSION } from './version';
import { NodeClient, type Hex } from './rpc/nodeClient';
import { NodeTimeoutError, NodeUnavailableError } from './rpc/nodeErrors';
import { chainServices, type ChainServices } from './services/chain';
import { FinalizedHead } from './services/finalizedHead';
import { RelayLink } from './services/relayLink';
import { followTheChain } from './followWiring';
import { rateLimited } from './http/rateLimit';
import { ClientLimits } from './limits/clientLimits';
import { CounterStore } from './limits/counterStore';
import { docsRouter } from './http/docs';
import { HotAnswers } from './http/hotAnswers';
import { answerClientErrors } from './http/clientErrors';
import { closeServer, listen, timeoutOptions } from './http/listen';
import { startMetricsServer } from './http/metricsServer';
import { RequestLog } from './http/requestLog';
import { paced, RequestPacer } from './http/requestPacer';
import { RouteBinder } from './http/routeBinder';

export interface Fastcar {
  url: string;
  /** Where /metrics is served (its own port); undefined when turned off. */
  metricsUrl?: string;
  server: Server;
  close(): Promise<void>;
}

/** How long one health reading is answered to everyone who asks. */
const HEALTH_MAX_AGE_MS = 1000;

/** How long a start waits for the relay chain's node before serving without it. */
const RELAY_GRACE_MS = 10_000;
/** While the node cannot be reached at start: how often it is asked again, and how often that is said. */
const NODE_RETRY_MS = 1_000;
const NODE_WAIT_LOG_MS = 10_000;

/** The format of what the cache keeps, in its keys: bumped when an entry's layout changes. */
const CACHE_FORMAT = 2;

/** Finalized answers kept as wire bytes: a quarter of the cache budget, at most this. */
const HOT_ANSWERS_MAX_BYTES = 64 * 1024 * 1024;

/** One chain's node and the services over it. */
interface Chain {
  node: NodeClient;
  finalized: FinalizedHead;
  services: ChainServices;
  redis?: RedisStore;
  cache: TieredCache;
  genesis: string;
  leases?: BuildLeases;
  close(): Promise<void>;
}

function nodeClientFor(url: string, config: Config, metrics: Metrics): NodeClient {
  // Labelled by host only: a provider's API key lives in the URL's path or query.
  const upstream = /^https?:/.test(url) ? new URL(url).host : '';
  return new NodeClient({
    url,
    timeoutMs: config.rpcTimeoutMs,
    onCall: (method) => metrics.rpcCalls.add(method),
    onError: (method) => metrics.rpcErrors.add(method),
    http: {
      maxBatch: config.rpcMaxBatch,
      maxInFlight: config.rpcMaxInFlight,
      ratePerSecond: config.rpcRatePerSecond,
      http2: config.rpcHttp2,
      hooks: {
        onRequest: () => metrics.rpcHttpRequests.inc({ upstream }),
        onThrottled: (how) => metrics.rpcThrottled.inc({ upstream, how }),
        onRetry: (calls) => metrics.rpcRetries.inc({ upstream }, calls),
        onBatchRefused: (reason) => metrics.rpcBatchesRefused.inc({ upstream, reason }),
      },
    },
  });
}

/**
 * The chain's genesis hash, once the node answers: a node not up yet (started after us, or
 * away) is waited for, asked again every second and said so every ten, with the process
 * held open meanwhile (the transports' reconnect timers do not hold it).
 */
async function genesisWhenReachable(node: NodeClient, url: string, logger: Logger): Promise<Hex | null> {
  const waiting = setInterval(() => logger.warn({ node: urlForLogs(url) }, 'the node cannot be reached yet; still trying'), NODE_WAIT_LOG_MS);
  try {
    await node.ready();
    for (;;) {
      try {
        return await node.getBlockHash(0);
      } catch (error) {
        if (!(error instanceof NodeUnavailableError || error instanceof NodeTimeoutError)) throw error;
        await new Promise((resolve) => setTimeout(resolve, NODE_RETRY_MS));
      }
    }
  } finally {
    clearInterval(waiting);
  }
}

/** The services over a node, once it is connected. */
async function connectChain(node: NodeClient, url: string, config: Config, cacheMaxBytes: number, logger: Logger): Promise<Chain> {
  // Keys carry the chain's genesis hash (instances of different chains may share one
  // Redis) and the entries' format (instances that write another one never read these).
  const genesis = await genesisWhenReachable(node, url, logger);
  if (!genesis) throw new Error(`the node at ${url} has no block 0`);
  const redis = config.redisUrl
    ? new RedisStore(config.redisUrl, `fastcar:${CACHE_FORMAT}:${genesis.slice(0, 18)}:`, config.redisTtlSeconds, logger)
    : undefined;
  const cache = new TieredCache(cacheMaxBytes, redis);
  const leases = redis ? new BuildLeases(cache, redis, config.buildLeaseMs) : undefined;
  const finalized = new FinalizedHead(node, config.finalizedPollMs);
  // The index and the prebuilder start reading with the services: by then Redis is open (or given up on for now).
  await Promise.all([finalized.start(), redis?.whenOpen(REDIS_CONNECT_MS)]);
  const services = chainServices(node, finalized, cache, genesis, leases);
  return {
    node,
    finalized,
    services,
    redis,
    cache,
    genesis,
    leases,
    async close() {
      finalized.stop();
      await services.close();
      await redis?.close();
      await node.disconnect().catch(() => undefined);
    },
  };
}

/**
 * The per-client limit, counted in Redis when there is one: every replica (and worker)
 * sharing it enforces one limit. Keyed by chain, as the cache is.
 */
function rateLimitsOf(config: Config, genesis: string, metrics: Metrics, logger: Logger): { clients: ClientLimits; store?: CounterStore } | undefined {
  if (config.rateLimitPerIp === 0) return undefined;
  const store = config.redisUrl ? new CounterStore(config.redisUrl, logger) : undefined;
  const perClient = { calls: config.rateLimitPerIp, windowSeconds: 1, burst: config.rateLimitBurst };
  const clients = new ClientLimits(`fastcar:${genesis.slice(0, 18)}`, { perClient, perMethod: [], windowSeconds: 1 }, store);
  metrics.total('fastcar_rate_limited', 'Requests refused with 429 since start', () => clients.refused);
  metrics.gauge('fastcar_rate_limits_shared', '1 while the per-client limit is counted in Redis (shared by replicas), 0 while in process', () =>
    store?.shared ? 1 : 0,
  );
  return { clients, store };
}

export async function startFastcar(config: Config & { nodeUrl: string }, logger: Logger): Promise<Fastcar> {
  const metrics = new Metrics();
  // A relay chain beside the parachain gets a quarter of the cache: its blocks are asked for less.
  const relayShare = config.relayUrl ? Math.floor(config.cacheMaxBytes / 4) : 0;
  const chain = await connectChain(nodeClientFor(config.nodeUrl, config, metrics), config.nodeUrl, config, config.cacheMaxBytes - relayShare, logger);
  // The relay chain connects in the background: this chain is served meanwhile, and what
  // needs the relay chain answers 503 until it is there (and whenever it is away).
  const relayNode = config.relayUrl ? nodeClientFor(config.relayUrl, config, metrics) : undefined;
  let relayChain: Chain | undefined;
  if (relayNode && config.relayUrl) {
    const url = config.relayUrl;
    const connecting = connectChain(relayNode, url, config, Math.max(relayShare, 1), logger).then(
      (connected) => {
        relayChain = connected;
        logger.info({ relay: urlForLogs(url) }, 'relay chain connected');
        // As for this chain: the relay runtime loaded before its first request needs it.
        connected.services.blocks
          .warmUp()
          .catch((error: unknown) => logger.warn({ err: error }, 'relay runtime warm-up failed; its first request will load it'));
      },
      (error: unknown) => logger.error({ err: error, relay: urlForLogs(url) }, 'the relay chain node cannot be used; its routes answer 503'),
    );
    // A relay node that is there is waited for, briefly, so the first requests find it.
    await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, RELAY_GRACE_MS).unref())]);
    if (!relayChain) logger.warn({ relay: urlForLogs(url) }, 'the relay chain node is not connected yet; its routes answer 503 until it is');
  }
  const relayServices = (): ChainServices => {
    if (!relayChain) throw new NodeUnavailableError('the relay chain node is not connected yet');
    return relayChain.services;
  };
  const { node, finalized, services, redis, cache } = chain;
  exposeChainFigures(metrics, chain);
  services.blocks.warmUp().catch((error: unknown) => logger.warn({ err: error }, 'runtime warm-up failed; the first request will load it'));

  // One health reading a second, whoever asks: /health stays cheap when polled hard.
  const health = sharedFor(HEALTH_MAX_AGE_MS, async () => {
    const connected = node.isConnected;
    const reachable = await node.reachable();
    return {
      status: reachable ? 200 : 503,
      body: {
        status: reachable ? 'ok' : 'node unavailable',
        node: { connected, reachable },
        finalizedHeight: finalized.known ? await finalized.current() : null,
        secondsSinceFinalizedAdvanced: finalized.secondsSinceAdvance(),
        redis: redis ? { connected: redis.connected } : undefined,
        relay: relayNode ? { connected: relayNode.isConnected, reachable: relayChain !== undefined && (await relayNode.reachable()) } : undefined,
        cache: { bytes: cache.bytes, entries: cache.entries, ...cache.counters },
      },
    };
  });

  const ignoredParams = metrics.counter(
    'fastcar_ignored_query_params_total',
    'Query parameters sent to a route that does not use them (ignored, as sidecar does)',
  );
  // None with the cache off (nor a lookup in front of every request).
  const hot = config.cacheMaxBytes > 1 ? new HotAnswers(Math.min(HOT_ANSWERS_MAX_BYTES, Math.floor(config.cacheMaxBytes / 4))) : undefined;
  metrics.gauge('fastcar_hot_answers', 'Finalized answers kept as wire bytes for the warm path', () => hot?.entries ?? 0);
  const paramOptions = { strictParams: config.strictParams, onIgnoredParams: (count: number) => ignoredParams.inc(count) };
  const blockOptions: BlockHandlerOptions = { relay: relayNode ? new RelayLink(services, relayServices) : 'unconfigured' };
  // Newly finalized blocks built ahead of pollers, pushed to streams, indexed by extrinsic hash.
  const following = followTheChain(chain, config, metrics, logger);
  const requestLog = new RequestLog(logger, metrics);
  // Every route family through one door; polkadot-rest-api's users find the same routes under /v1.
  const routes = new RouteBinder({ requestLog, logger, warm: hot, readQuery: queryReader(paramOptions) });
  serveFamilies(routes, {
    own: { services: () => services, blocks: blockOptions, following: following.handlers },
    // The relay chain's handlers are made once it is connected (until then its routes answer 503).
    relay: relayNode && { services: relayServices, blocks: { relay: 'relay', mount: '/rc' } },
  });
  const unconfiguredRelay = relayNode
    ? []
    : (['/rc', '/v1/rc'] as const).map((prefix): [string, ReturnType<typeof unconfiguredRelayRouter>] => [prefix, unconfiguredRelayRouter()]);
  const app = createApp({
    logger,
    routers: [docsRouter(openApiDocument(VERSION)), ...routes.expressRouters(), ...unconfiguredRelay],
    health,
  });
  const pacer = new RequestPacer();
  metrics.gauge('fastcar_requests_queued', 'Requests read but not yet started', () => pacer.queued);
  const limits = rateLimitsOf(config, chain.genesis, metrics, logger);
  const listener = paced(routes.listener(app), pacer);
  const timeouts = { headersTimeoutMs: config.headersTimeoutMs, requestTimeoutMs: config.requestTimeoutMs };
  const server = createServer(timeoutOptions(timeouts), limits ? rateLimited(listener, limits.clients, config.trustedProxies) : listener);
  // Longer than the usual load balancer idle timeout (60 s), so the balancer closes
  // idle connections first and never sends a request into one we are closing.
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  const url = await listen(server, config.host, config.port);
  const metricsServer = config.metricsPort === undefined ? undefined : await startMetricsServer(metrics, config.metricsHost, config.metricsPort, timeouts);
  logger.info({ url, metrics: metricsServer?.url, node: urlForLogs(config.nodeUrl), redis: Boolean(redis) }, 'fastcar listening');
  return {
    url,
    metricsUrl: metricsServer?.url,
    server,
    async close() {
      await following.close(); // streams never end by themselves: the server would wait on them
      await closeServer(server);
      await metricsServer?.close();
      limits?.store?.close();
      await chain.close();
      await (relayChain ? relayChain.close() : relayNode?.disconnect().catch(() => undefined));
    },
  };
}
