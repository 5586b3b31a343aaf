// fastcar in this process, on a given node, as tests and benchmarks start it.
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startFastcar, type Fastcar } from '../src/server';

export async function startFastcarOn(nodeUrl: string, env: Record<string, string> = {}): Promise<Fastcar> {
  const config = loadConfig({ FASTCAR_PORT: '0', FASTCAR_METRICS_PORT: '0', FASTCAR_LOG_LEVEL: 'silent', ...env });
  return startFastcar({ ...config, nodeUrl }, createLogger(config.logLevel));
}

