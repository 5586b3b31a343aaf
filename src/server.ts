// Wires the layers together: node client -> services -> controllers -> HTTP.
import { createServer, type Server } from 'node:http';
import { Router } from 'express';

import { createApp } from './http/app';
import { RedisStore } from './cache/redisStore';
import { TieredCache } from './cache/tieredCache';
import type { Config } from './config';
import { blocksRouter, unconfiguredRelayRouter } from './controllers/blocksController';
import { urlForLogs, type Logger } from './logger';
import { Metrics } from './metrics';
import { VERSION } from './version';
import { NodeClient, NodeUnavailableError } from './rpc/nodeClient';
import { BlocksService } from './services/blocksService';
import { FinalizedHead } from './services/finalizedHead';
import { Prebuilder } from './services/prebuilder';
import { RuntimeRegistry } from './services/runtimes';
import { RelayLink } from './services/relayLink';
import { rateLimited, RateLimiter } from './http/rateLimit';
import { docsRouter } from './http/docs';
import { HotAnswers } from './http/hotAnswers';
import { paced, RequestPacer } from './http/requestPacer';


export interface Fastcar {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** How long a start waits for the relay chain's node before serving without it. */
const RELAY_GRACE_MS = 10_000;

/** A router made on first use, once what it needs exists (`make` throws until then). */
function pendingRouter(make: () => Router): Router {
  let made: Router | undefined;
  return Router().use((req, res, next) => {
    try {
      made ??= make();
    } catch (error) {
      next(error);
      return;
    }
    made(req, res, next);
  });
}

/** One chain's node and the services over it. */
interface Chain {
  node: NodeClient;
  finalized: FinalizedHead;
  blocks: BlocksService;
  redis?: RedisStore;
  cache: TieredCache;
  close(): Promise<void>;
}

function nodeClientFor(url: string, config: Config, metrics: () => Metrics | undefined): NodeClient {
  // Labelled by host only: a provider's API key lives in the URL's path or query.
  const upstream = /^https?:/.test(url) ? new URL(url).host : '';
  return new NodeClient({
    url,
    timeoutMs: config.rpcTimeoutMs,
    onCall: (method) => metrics()?.rpcCalls.inc({ method }),
    onError: (method) => metrics()?.rpcErrors.inc({ method }),
    http: {
      maxBatch: config.rpcMaxBatch,
      maxInFlight: config.rpcMaxInFlight,
      ratePerSecond: config.rpcRatePerSecond,
      http2: config.rpcHttp2,
      hooks: {
        onRequest: () => metrics()?.rpcHttpRequests.inc({ upstream }),
        onThrottled: (how) => metrics()?.rpcThrottled.inc({ upstream, how }),
        onRetry: (calls) => metrics()?.rpcRetries.inc({ upstream }, calls),
        onBatchRefused: (reason) => metrics()?.rpcBatchesRefused.inc({ upstream, reason }),
      },
    },
  });
}

/** The services over a node, once it is connected. */
async function connectChain(node: NodeClient, url: string, config: Config, cacheMaxBytes: number): Promise<Chain> {
  await node.ready();
  // Keys carry the chain's genesis hash: instances of different chains may share one Redis.
  const genesis = await node.getBlockHash(0);
  if (!genesis) throw new Error(`the node at ${url} has no block 0`);
  const redis = config.redisUrl ? new RedisStore(config.redisUrl, `fastcar:1:${genesis.slice(0, 18)}:`, config.redisTtlSeconds) : undefined;
  const cache = new TieredCache(cacheMaxBytes, redis);
  const finalized = new FinalizedHead(node, config.finalizedPollMs);
  await finalized.start();
  const blocks = new BlocksService(node, new RuntimeRegistry(node), finalized, cache, genesis);
  return {
    node,
    finalized,
    blocks,
    redis,
    cache,
    async close() {
      finalized.stop();
      await redis?.close();
      await node.disconnect().catch(() => undefined);
    },
  };
}

export async function startFastcar(config: Config & { nodeUrl: string }, logger: Logger): Promise<Fastcar> {
  let metrics: Metrics | undefined;
  // A relay chain beside the parachain gets a quarter of the cache: its blocks are asked for less.
  const relayShare = config.relayUrl ? Math.floor(config.cacheMaxBytes / 4) : 0;
  const chain = await connectChain(nodeClientFor(config.nodeUrl, config, () => metrics), config.nodeUrl, config, config.cacheMaxBytes - relayShare);
  // The relay chain connects in the background: this chain is served meanwhile, and what
  // needs the relay chain answers 503 until it is there (and whenever it is away).
  const relayNode = config.relayUrl ? nodeClientFor(config.relayUrl, config, () => metrics) : undefined;
  let relayChain: Chain | undefined;
  if (relayNode && config.relayUrl) {
    const url = config.relayUrl;
    const connecting = connectChain(relayNode, url, config, Math.max(relayShare, 1)).then(
      (connected) => {
        relayChain = connected;
        logger.info({ relay: urlForLogs(url) }, 'relay chain connected');
        // As for this chain: the relay runtime loaded before its first request needs it.
        connected.blocks.warmUp().catch((error: unknown) => logger.warn({ err: error }, 'relay runtime warm-up failed; its first request will load it'));
      },
      (error: unknown) => logger.error({ err: error, relay: urlForLogs(url) }, 'the relay chain node cannot be used; its routes answer 503'),
    );
    // A relay node that is there is waited for, briefly, so the first requests find it.
    await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, RELAY_GRACE_MS).unref())]);
    if (!relayChain) logger.warn({ relay: urlForLogs(url) }, 'the relay chain node is not connected yet; its routes answer 503 until it is');
  }
  const relayBlocks = (): BlocksService => {
    if (!relayChain) throw new NodeUnavailableError('the relay chain node is not connected yet');
    return relayChain.blocks;
  };
  const { node, finalized, blocks, redis, cache } = chain;
  metrics = new Metrics(cache);
  metrics.gauge('fastcar_node_requests_pending', 'Node calls sent and not yet answered or given up', () => node.pendingRequests);
  metrics.gauge('fastcar_finalized_height', 'The finalized height the node last reported', () => (finalized.known ? finalized.height : -1));
  metrics.gauge('fastcar_finalized_age_seconds', 'Seconds since the finalized height last moved', () => finalized.secondsSinceAdvance() ?? -1);
  if (config.prebuildBlocks > 0) {
    const prebuilder = new Prebuilder(blocks, logger, config.prebuildBlocks);
    finalized.onAdvance((number) => prebuilder.onFinalized(number));
  }

  const health = async () => {
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
  };
  blocks.warmUp().catch((error: unknown) => logger.warn({ err: error }, 'runtime warm-up failed; the first request will load it'));
  const ignoredParams = metrics.counter('fastcar_ignored_query_params_total', 'Query parameters sent to a route that does not use them (ignored, as sidecar does)');
  // A quarter of the cache budget, at most 64 MB, for finalized answers kept as wire bytes;
  // none with the cache off (nor a lookup in front of every request).
  const hot = config.cacheMaxBytes > 1 ? new HotAnswers(Math.min(64 * 1024 * 1024, Math.floor(config.cacheMaxBytes / 4))) : undefined;
  metrics.gauge('fastcar_hot_answers', 'Finalized answers kept as wire bytes for the warm path', () => hot?.entries ?? 0);
  const routerOptions = {
    strictParams: config.strictParams,
    onIgnoredParams: (count: number) => ignoredParams.inc(count),
    onImmutableAnswer: hot ? (url: string, body: Buffer, etag: string) => hot.remember(url, body, etag) : undefined,
  };
  const router = blocksRouter(blocks, { ...routerOptions, relay: relayNode ? new RelayLink(blocks, relayBlocks) : 'unconfigured' });
  const relayRouter = relayNode ? pendingRouter(() => blocksRouter(relayBlocks(), { ...routerOptions, relay: 'relay' })) : unconfiguredRelayRouter();
  // polkadot-rest-api serves the same routes under /v1: its users can point here unchanged.
  const app = createApp({
    logger,
    metrics,
    routers: [docsRouter(VERSION), router, ['/rc', relayRouter], ['/v1', router], ['/v1/rc', relayRouter]],
    health,
  });
  const pacer = new RequestPacer();
  metrics.gauge('fastcar_requests_queued', 'Requests read but not yet started', () => pacer.queued);
  const limiter = config.rateLimitPerIp > 0 ? new RateLimiter(config.rateLimitPerIp) : undefined;
  if (limiter) metrics.gauge('fastcar_rate_limited', 'Requests refused with 429 since start', () => limiter.rejected);
  const listener = paced(hot ? hot.listener(app, metrics, logger) : app, pacer);
  const server = createServer(limiter ? rateLimited(listener, limiter, config.trustedProxies) : listener);
  // Bursts of new connections (a load balancer warming up, a thousand clients at once)
  // must queue in the kernel, not be dropped into SYN retries.
  server.listen({ port: config.port, host: config.host, backlog: 4096 });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // Requests Node rejects before Express sees them (oversized headers or URLs, bad
  // syntax) still get a JSON answer.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({ code: status, message: status === 431 ? 'Request headers or URL too large.' : 'Malformed HTTP request.' });
    socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  // Slow clients must not hold sockets forever.
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  // Longer than the usual load balancer idle timeout (60 s), so the balancer closes
  // idle connections first and never sends a request into one we are closing.
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, node: urlForLogs(config.nodeUrl), redis: Boolean(redis) }, 'fastcar listening');
  return {
    url,
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      limiter?.close();
      await chain.close();
      await (relayChain ? relayChain.close() : relayNode?.disconnect().catch(() => undefined));
    },
  };
}
