// fastcar in this process, on a given node, as tests and benchmarks start it.
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startFastcar, type Fastcar } from '../src/server';

/**
 * The extrinsic index is off unless asked for: filling it back reads every block of the
 * devnet at start, node calls that tests and benchmarks counting calls would see.
 */
export async function startFastcarOn(nodeUrl: string, env: Record<string, string> = {}): Promise<Fastcar> {
  const config = loadConfig({ FASTCAR_PORT: '0', FASTCAR_METRICS_PORT: '0', FASTCAR_LOG_LEVEL: 'silent', FASTCAR_EXTRINSIC_INDEX_BLOCKS: '0', ...env });
  return startFastcar({ ...config, nodeUrl }, createLogger(config.logLevel));
}
