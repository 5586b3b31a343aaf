#!/usr/bin/env node
// `npm start`: serve the node named in the environment, or, with none named,
// start the bundled devnet and serve that.
import { ConfigError, HELP, loadConfig } from './config';
import { createLogger } from './logger';
import { startFastcar } from './server';

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  let nodeUrl = config.nodeUrl;
  let stopDevnet: (() => Promise<void>) | undefined;
  if (!nodeUrl) {
    process.env.LOG_LEVEL ??= 'warn'; // chopsticks' own logger
    // Loaded only when needed: a production deployment never touches the devnet code.
    const { serveStoredChain } = await import('../devnet/cli');
    const { devnet, manifest } = await serveStoredChain(config.devnetPort);
    nodeUrl = devnet.wsUrl;
    stopDevnet = () => devnet.close();
    logger.info({ devnet: devnet.wsUrl, blocks: `0-${manifest.head.number}` }, 'no node configured: serving the bundled devnet');
  }
  const fastcar = await startFastcar({ ...config, nodeUrl }, logger);
  process.stdout.write(`fastcar ready: ${fastcar.url}/blocks/head (node ${nodeUrl})\n`);
  const stop = () => {
    void fastcar
      .close()
      .then(() => stopDevnet?.())
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error?.constructor?.name === 'DevnetSetupError';
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${known ? message : `fastcar could not start: ${message}`}\n`);
  process.exit(1);
});
