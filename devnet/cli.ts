// `npm run devnet` (serve) and `npm run devnet:seed` (rebuild the stored chain).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DevnetSetupError, ensureChainSpec, startDevnet, type Devnet } from './chain';
import { CODE_KEY, dropRepeatedCode } from './compact';
import { CHAIN_DB_PATH, CHAIN_DIR, CHAIN_MANIFEST_PATH } from './paths';
import { nodeBinary, packSeededChain, REAL_BLOCK_TIME_MS, serveRealChain } from './realNode';
import { seedChain, type SeedManifest } from './seed';
import { seedVersion } from './seedVersion';

export function readManifest(): SeedManifest | undefined {
  if (!existsSync(CHAIN_MANIFEST_PATH) || !existsSync(CHAIN_DB_PATH)) return undefined;
  return JSON.parse(readFileSync(CHAIN_MANIFEST_PATH, 'utf8')) as SeedManifest;
}

export function storedChainIsCurrent(): boolean {
  const manifest = readManifest();
  const wanted = seedVersion();
  return manifest !== undefined && (wanted === undefined || manifest.seedVersion === wanted);
}

function progressBar(done: number, total: number, label: string, started: number) {
  const width = 30;
  const filled = Math.min(width, Math.round((done / total) * width));
  const seconds = Math.round((Date.now() - started) / 1000);
  const line = `seeding [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] block ${done}/${total} ${label} ${seconds}s`;
  if (process.stderr.isTTY) process.stderr.write(`\r${line.padEnd(90)}`);
  else if (done % 10 === 0 || label !== 'empty') process.stderr.write(`${line}\n`);
}

/** Seeds into a scratch database and moves it into place only when complete. */
export async function seedStoredChain(): Promise<SeedManifest> {
  mkdirSync(CHAIN_DIR, { recursive: true });
  const scratch = `${CHAIN_DB_PATH}.partial`;
  rmSync(scratch, { force: true });
  const devnet = await startDevnet({ port: 0, dbPath: scratch, resume: false });
  const started = Date.now();
  try {
    const manifest = await seedChain(devnet, (done, total, label) => progressBar(done, total, label, started));
    process.stderr.write('\n');
    await devnet.close();
    const spec = await ensureChainSpec();
    await dropRepeatedCode(scratch, spec.genesis.raw.top[CODE_KEY]);
    renameSync(scratch, CHAIN_DB_PATH);
    writeFileSync(CHAIN_MANIFEST_PATH, `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } catch (error) {
    await devnet.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Serves the stored chain from a copy, so the committed database is never
 * written to; seeds it first when it is missing or out of date.
 */
export async function serveStoredChain(port: number, options: { wasmOverride?: string } = {}): Promise<{ devnet: Devnet; manifest: SeedManifest }> {
  if (!storedChainIsCurrent()) {
    process.stderr.write('devnet: the stored chain is missing or out of date; seeding it (about 10 minutes, once)\n');
    await seedStoredChain();
  }
  const manifest = readManifest() as SeedManifest;
  const scratchDir = mkdtempSync(join(tmpdir(), 'fastcar-devnet-'));
  const dbPath = join(scratchDir, 'devnet.sqlite');
  copyFileSync(CHAIN_DB_PATH, dbPath);
  const devnet = await startDevnet({ port, dbPath, resume: true, wasmOverride: options.wasmOverride });
  if (devnet.chain.head.number !== manifest.head.number) {
    await devnet.close();
    throw new DevnetSetupError(
      `the devnet database resumed at block ${devnet.chain.head.number}, the manifest says ${manifest.head.number}: run "npm run devnet:seed"`,
    );
  }
  const close = devnet.close;
  let closing: Promise<void> | undefined;
  devnet.close = () => {
    closing ??= close().then(() => rmSync(scratchDir, { recursive: true, force: true }));
    return closing;
  };
  return { devnet, manifest };
}

export function devnetPort(): number {
  const raw = process.env.DEVNET_PORT ?? '9944';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new DevnetSetupError(`DEVNET_PORT=${raw} is not a port number: use a whole number from 0 to 65535`);
  }
  return port;
}

async function main() {
  const command = process.argv[2] ?? 'serve';
  const started = Date.now();
  if (command === 'seed' && process.argv.includes('--real')) {
    const packed = await packSeededChain(nodeBinary(), (line) => process.stderr.write(`${line}\n`));
    console.log(`real node's seeded chain kept in ${packed}`);
    return;
  }
  if (command === 'seed') {
    const manifest = await seedStoredChain();
    console.log(`devnet seeded: blocks 0-${manifest.head.number} in ${manifest.seconds}s (${CHAIN_DB_PATH})`);
    return;
  }
  if (command !== 'serve') throw new DevnetSetupError(`unknown command "${command}": use "serve" or "seed"`);
  if (process.argv.includes('--real')) return serveOnRealNode(started);
  const { devnet, manifest } = await serveStoredChain(devnetPort());
  console.log(`devnet ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${devnet.wsUrl} (HTTP ${devnet.httpUrl}), blocks 0-${manifest.head.number}`);
  const stop = () => void devnet.close().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** `npm run devnet -- --real`: the same seeded history on a real node (polkadot-omni-node), on DEVNET_PORT. */
async function serveOnRealNode(started: number) {
  const served = await serveRealChain({ rpcPort: devnetPort(), progress: (line) => process.stderr.write(`${line}\n`) });
  console.log(
    `real node ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${served.node.wsUrl} (HTTP ${served.node.httpUrl}), seeded blocks 0-${served.manifest.head.number}, a new block every ${REAL_BLOCK_TIME_MS / 1000} s`,
  );
  const stop = () => void served.close().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const message = error instanceof DevnetSetupError ? error.message : `devnet failed: ${error instanceof Error ? error.message : String(error)}`;
    console.error(`error: ${message}`);
    process.exit(1);
  });
}
