import { urlForLogs, type Logger } from '../logger';
import type { ProxyConfig } from './proxyConfig';
import { RpcProxy } from './proxyServer';
import { ProxyReloader } from './reload';
import { UpstreamPool, type PoolOptions } from './upstreamPool';

export async function startProxy(
  config: ProxyConfig,
  logger: Logger,
): Promise<{ proxy: RpcProxy; address: string; pool: UpstreamPool; reloader: ProxyReloader }> {
  // One object, read by the pool and every upstream on each call: a reload changes it in place.
  const poolOptions: PoolOptions = {
    maxConcurrent: config.maxConcurrentPerUpstream,
    maxSubscriptionsPerConnection: config.maxSubscriptionsPerUpstreamConnection,
    maxConnections: config.maxUpstreamConnections,
    timeoutMs: config.timeoutMs,
    retries: config.retries,
    maxLagBlocks: config.maxLagBlocks,
    healthIntervalMs: config.healthIntervalMs,
    http: { maxBatch: config.httpMaxBatch, maxInFlight: config.httpMaxInFlight, ratePerSecond: config.httpRatePerSecond },
    balance: config.balance,
    weights: config.upstreamWeights,
    maxFollowsPerConnection: config.maxFollowsPerUpstreamConnection,
  };
  const pool = new UpstreamPool(config.upstreams, poolOptions);
  if (!(await pool.start())) {
    logger.warn({ upstreams: config.upstreams.map(urlForLogs) }, 'no upstream can be reached yet: calls are answered -32090 until one opens');
  }
  const proxy = new RpcProxy(pool, { ...config, methods: { allow: config.allowMethods, deny: config.denyMethods } }, logger);
  const address = await proxy.listen();
  logger.info({ address, upstreams: config.upstreams.map(urlForLogs) }, 'proxy listening');
  return { proxy, address, pool, reloader: new ProxyReloader(config, { proxy, pool, poolOptions }, logger) };
}
