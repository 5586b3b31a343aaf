// Wires the layers together: node client -> services -> controllers -> HTTP.
import { createServer, type Server } from 'node:http';

import { createApp } from './http/app';
import { BuildLeases } from './cache/buildLeases';
import { RedisStore } from './cache/redisStore';
import { sharedFor } from './cache/sharedFor';
import { TieredCache } from './cache/tieredCache';
import type { Config } from './config';
import { accountsHandlers } from './controllers/accounts/handlers';
import { ACCOUNTS_FAMILY } from './controllers/accounts/routes';
import { palletAssetsHandlers } from './controllers/palletAssets/handlers';
import { PALLET_ASSETS_FAMILY } from './controllers/palletAssets/routes';
import { ahmHandlers } from './controllers/ahm/handlers';
import { AHM_FAMILY } from './controllers/ahm/routes';
import { referendaHandlers } from './controllers/referenda/handlers';
import { REFERENDA_FAMILY } from './controllers/referenda/routes';
import { parasHandlers } from './controllers/paras/handlers';
import { PARAS_FAMILY } from './controllers/paras/routes';
import { coretimeHandlers } from './controllers/coretime/handlers';
import { CORETIME_FAMILY } from './controllers/coretime/routes';
import { stakingHandlers } from './controllers/staking/handlers';
import { STAKING_FAMILY } from './controllers/staking/routes';
import { stakingAccountsHandlers } from './controllers/stakingAccounts/handlers';
import { STAKING_ACCOUNTS_FAMILY } from './controllers/stakingAccounts/routes';
import { unservedHandlers } from './controllers/unserved/handlers';
import { UNSERVED_FAMILY } from './controllers/unserved/routes';
import { palletsHandlers } from './controllers/pallets/handlers';
import { PALLETS_FAMILY } from './controllers/pallets/routes';
import { blockHandlers, type BlockHandlerOptions } from './controllers/blocks/handlers';
import { BLOCKS_FAMILY } from './controllers/blocks/routes';
import { openApiDocument, unconfiguredRelayRouter } from './controllers/families';
import { FOLLOW_FAMILY } from './controllers/follow/routes';
import { nodeHandlers } from './controllers/node/handlers';
import { NODE_FAMILY } from './controllers/node/routes';
import type { ParamOptions } from './controllers/params';
import { runtimeHandlers } from './controllers/runtime/handlers';
import { RUNTIME_FAMILY } from './controllers/runtime/routes';
import { transactionHandlers } from './controllers/transaction/handlers';
import { TRANSACTION_FAMILY } from './controllers/transaction/routes';
import { urlForLogs, type Logger } from './logger';
import { Metrics } from './metrics';
import { VERSION } from './version';
import { NodeClient, NodeTimeoutError, NodeUnavailableError, type Hex } from './rpc/nodeClient';
import { decodeCounters } from './services/blocks/bodyDecoding';
import { chainServices, type ChainServices } from './services/chain';
import { FinalizedHead } from './services/finalizedHead';
import { RelayLink } from './services/relayLink';
import { followTheChain } from './followWiring';
import { rateLimited } from './http/rateLimit';
import { ClientLimits } from './limits/clientLimits';
import { CounterStore } from './limits/counterStore';
import { docsRouter } from './http/docs';
import { HotAnswers } from './http/hotAnswers';
import { listen, timeoutOptions } from './http/listen';
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

type ClientErrorAnswer = [status: number, reason: string, message: string];
const MALFORMED: ClientErrorAnswer = [400, 'Bad Request', 'Malformed HTTP request.'];
const CLIENT_ERRORS: Record<string, ClientErrorAnswer> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request headers or URL too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request did not arrive in time.'],
};

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

/** The services over a node, once it is connected. */
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
  await finalized.start();
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

/** The figures kept by the parts below (the cache, the decoding, the node client, the finalized head), read at scrape time. */
function exposeFigures(metrics: Metrics, { cache, node, finalized, leases, redis }: Chain): void {
  if (redis) {
    metrics.gauge(
      'fastcar_redis_shared',
      '1 while Redis answers (answers, leases and extrinsic hashes shared by the replicas), 0 while it is away or not answering in time',
      () => (redis.connected ? 1 : 0),
    );
  }
  if (leases) {
    metrics.totalsBy(
      'fastcar_block_builds_leased_total',
      'Final block answers asked of the fleet since start (led: built here under the lease; awaited: built by another replica; ' +
        'tookOver: built here after the holder died; redisAway, notShared: built here alone)',
      'outcome',
      () => leases.counters,
    );
  }
  metrics.total('fastcar_cache_hits', 'Cache hits since start', () => cache.counters.hits);
  metrics.total('fastcar_cache_misses', 'Cache misses since start', () => cache.counters.misses);
  metrics.total('fastcar_cache_redis_hits', 'Hits served by Redis since start', () => cache.counters.redisHits);
  metrics.total('fastcar_cache_redis_errors', 'Redis errors since start', () => cache.counters.redisErrors);
  metrics.gauge('fastcar_cache_bytes', 'Bytes held by the in-process cache', () => cache.bytes);
  metrics.gauge('fastcar_cache_entries', 'Entries held by the in-process cache', () => cache.entries);
  metrics.total('fastcar_blocks_decoded_compiled', 'Blocks read by the compiled codecs since start', () => decodeCounters.compiled);
  metrics.total(
    'fastcar_blocks_decoded_fallback',
    'Blocks read by polkadot.js since start (old metadata, or bytes the compiled codecs declined)',
    () => decodeCounters.fallback,
  );
  metrics.total(
    'fastcar_decode_faults',
    'Blocks the compiled codecs failed on by an error of their own (read by polkadot.js instead) since start',
    () => decodeCounters.faults,
  );
  metrics.total('fastcar_decode_pauses', 'Times a block decode yielded to other requests since start', () => decodeCounters.pauses);
  metrics.gauge('fastcar_node_requests_pending', 'Node calls sent and not yet answered or given up', () => node.pendingRequests);
  metrics.gauge('fastcar_finalized_height', 'The finalized height the node last reported', () => (finalized.known ? finalized.height : -1));
  metrics.gauge('fastcar_finalized_age_seconds', 'Seconds since the finalized height last moved', () => finalized.secondsSinceAdvance() ?? -1);
}

/** The families every chain serves (all but following), under `mount`, over the services `servicesOf` gives once they exist. */
function serveChain(routes: RouteBinder, mount: string, servicesOf: () => ChainServices, params: ParamOptions, blocks: BlockHandlerOptions): void {
  routes.add(mount, BLOCKS_FAMILY, () => blockHandlers(servicesOf(), blocks));
  routes.add(mount, RUNTIME_FAMILY, () => runtimeHandlers(servicesOf(), params));
  routes.add(mount, NODE_FAMILY, () => nodeHandlers(servicesOf(), params));
  routes.add(mount, TRANSACTION_FAMILY, () => transactionHandlers(servicesOf(), params));
  routes.add(mount, ACCOUNTS_FAMILY, () => accountsHandlers(servicesOf(), params, blocks.relay));
  routes.add(mount, PALLETS_FAMILY, () => palletsHandlers(servicesOf(), params, blocks.relay));
  routes.add(mount, STAKING_FAMILY, () => stakingHandlers(servicesOf(), params, blocks.relay));
  routes.add(mount, STAKING_ACCOUNTS_FAMILY, () => stakingAccountsHandlers(servicesOf(), params, blocks.relay));
  routes.add(mount, AHM_FAMILY, () => ahmHandlers(servicesOf(), params, blocks.relay));
  routes.add(mount, REFERENDA_FAMILY, () => referendaHandlers(servicesOf(), params, blocks.relay));
  routes.add(mount, PARAS_FAMILY, () => parasHandlers(servicesOf(), params));
  routes.add(mount, CORETIME_FAMILY, () => coretimeHandlers(servicesOf(), params));
  routes.add(mount, UNSERVED_FAMILY, unservedHandlers);
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
  exposeFigures(metrics, chain);
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
  const blockOptions: BlockHandlerOptions = { ...paramOptions, relay: relayNode ? new RelayLink(services, relayServices) : 'unconfigured' };
  // Newly finalized blocks built ahead of pollers, pushed to streams, indexed by extrinsic hash.
  const following = followTheChain(chain, config, metrics, logger, paramOptions.onIgnoredParams);
  const requestLog = new RequestLog(logger, metrics);
  // Every route family through one door; polkadot-rest-api's users find the same routes under /v1.
  const routes = new RouteBinder({ requestLog, logger, warm: hot });
  routes.add('', FOLLOW_FAMILY, following.handlers);
  serveChain(routes, '', () => services, paramOptions, blockOptions);
  // Sidecar serves these on Asset Hub only (never under /rc).
  routes.add('', PALLET_ASSETS_FAMILY, () => palletAssetsHandlers(services, paramOptions, blockOptions.relay));
  // The relay chain's handlers are made once it is connected (until then its routes answer 503).
  if (relayNode) serveChain(routes, '/rc', relayServices, paramOptions, { ...paramOptions, relay: 'relay', mount: '/rc' });
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
  // Requests Node rejects before Express sees them (oversized headers or URLs, bad
  // syntax, too slow) still get a JSON answer.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason, message] = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ code: status, message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  const url = await listen(server, config.host, config.port);
  const metricsServer = config.metricsPort === undefined ? undefined : await startMetricsServer(metrics, config.metricsHost, config.metricsPort, timeouts);
  logger.info({ url, metrics: metricsServer?.url, node: urlForLogs(config.nodeUrl), redis: Boolean(redis) }, 'fastcar listening');
  return {
    url,
    metricsUrl: metricsServer?.url,
    server,
    async close() {
      await following.close(); // streams never end by themselves: the server would wait on them
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await metricsServer?.close();
      limits?.store?.close();
      await chain.close();
      await (relayChain ? relayChain.close() : relayNode?.disconnect().catch(() => undefined));
    },
  };
}
