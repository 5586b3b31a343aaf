// Starts the devnet: chopsticks serving the committed runtime's genesis and
// the seeded blocks in its database, over WebSocket and HTTP on loopback.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { BuildBlockMode, setupWithServer } from '@acala-network/chopsticks';
import { Api, Blockchain } from '@acala-network/chopsticks-core';

import { CODE_KEY } from './compact';
import { keepJson } from './keptFiles';
import { buildChainSpec, DevnetSetupError, loadRuntime, type ChainSpec } from './genesis';
import { CHAIN_SPEC_PATH } from './paths';
import { economizeRuntimeCalls } from './runtimeCalls';

export { DevnetSetupError };

export interface DevnetOptions {
  port: number;
  host?: string;
  dbPath: string;
  /** Continue from the newest block in the database (false: start from genesis). */
  resume: boolean;
  /** A runtime file put in place at the head, as a runtime upgrade enacted by the head block would. */
  wasmOverride?: string;
}

export interface Devnet {
  wsUrl: string;
  httpUrl: string;
  port: number;
  chain: Awaited<ReturnType<typeof setupWithServer>>['chain'];
  close(): Promise<void>;
}

let chopsticksTurn: Promise<unknown> = Promise.resolve();

/**
 * Runs `work` when no other devnet is being set up or building blocks in this process:
 * the setup below swaps Blockchain#newBlock for every chain at once, so a relay devnet
 * building its blocks meanwhile would build nothing.
 */
export function inChopsticksTurn<T>(work: () => Promise<T>): Promise<T> {
  const result = chopsticksTurn.then(work);
  chopsticksTurn = result.catch(() => undefined);
  return result;
}

/** Makes Blockchain#newBlock a no-op until the returned function restores it. */
function skipSetupBlock(): () => void {
  const prototype = Blockchain.prototype as { newBlock: Blockchain['newBlock'] };
  const original = prototype.newBlock;
  prototype.newBlock = async function (this: Blockchain) {
    return this.head;
  };
  return () => {
    prototype.newBlock = original;
  };
}

/**
 * chopsticks' genesis provider answers every `chain_getHeader` with the genesis header,
 * whatever hash it is asked about; chopsticks then takes any hash it does not hold for a
 * copy of genesis and sets up a runtime for it. A burst of random block hashes (as the
 * hostile-request test sends) ran its wasm worker out of memory and ended the devnet. On
 * this chain the genesis provider knows one hash only: any other it does not know.
 */
function answerOnlyGenesisFromProvider(): void {
  const prototype = Api.prototype as { getHeader: Api['getHeader']; patchedForGenesis?: true };
  if (prototype.patchedForGenesis) return;
  const original = prototype.getHeader;
  prototype.getHeader = async function (this: Api, hash?: string) {
    if (hash && hash !== (await this.getBlockHash())) return null;
    return original.call(this, hash);
  } as Api['getHeader'];
  prototype.patchedForGenesis = true;
}
answerOnlyGenesisFromProvider();
economizeRuntimeCalls();

/**
 * Under the first block, chopsticks reads what no block has written from the genesis spec,
 * which it holds in memory; but given a database it looks each such key up in SQLite first
 * and writes it there after (through TypeORM): about 0.8 ms of CPU for every key it has not
 * read before, against 0.15 ms without (measured on this devnet, new accounts). That store
 * is for a fork of a live chain, whose keys cost a network call; here it only makes every new
 * key cost what no node pays. The blocks and their storage changes are still kept in the
 * database.
 */
function readGenesisFromMemory(chain: Blockchain): void {
  const db = chain.db as (NonNullable<Blockchain['db']> & Record<string, unknown>) | undefined;
  if (!db) return;
  db.queryStorage = async () => null;
  db.saveStorage = async () => undefined;
  db.saveStorageBatch = async () => undefined;
}

/** chopsticks quietly moves to the next free port; a user who asked for one must get it or a clear error. */
export async function assertPortFree(port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE' ? new DevnetSetupError(`port ${port} on ${host} is taken: stop what uses it or set DEVNET_PORT to a free port`) : error,
      ),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/**
 * A chain spec is derived from its runtime alone: built once by `build` and kept at
 * `path`, and built again only when the runtime in it is not `wasm`.
 */
export async function cachedChainSpec(wasm: Buffer, path: string, build: () => Promise<ChainSpec>): Promise<ChainSpec> {
  if (existsSync(path)) {
    const spec = JSON.parse(readFileSync(path, 'utf8')) as ChainSpec;
    if (spec.genesis.raw.top[CODE_KEY] === `0x${wasm.toString('hex')}`) return spec;
  }
  const spec = await build();
  keepJson(path, spec);
  return spec;
}

/** The Asset Hub devnet's spec, next to its database. */
export async function ensureChainSpec(): Promise<ChainSpec> {
  const { wasm } = loadRuntime();
  return cachedChainSpec(wasm, CHAIN_SPEC_PATH, () => buildChainSpec(wasm));
}

export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const host = options.host ?? '127.0.0.1';
  const spec = await ensureChainSpec();
  if (options.port !== 0) await assertPortFree(options.port, host);
  let server: Awaited<ReturnType<typeof setupWithServer>>;
  // chopsticks builds a first block of its own from the genesis spec at every setup, with the
  // clock's timestamp, before resuming from the database. Resuming, that stray block #1 raced
  // the stored one for height 1 (and now and then height 0), so heights 0-1 changed between
  // starts. The database has the real #1: while resuming, the setup builds nothing.
  server = await inChopsticksTurn(async () => {
    const restoreNewBlock = options.resume ? skipSetupBlock() : undefined;
    try {
      return await setupWithServer({
        port: options.port,
        host,
        genesis: spec,
        db: options.dbPath,
        resume: options.resume,
        'build-block-mode': BuildBlockMode.Manual,
        'runtime-log-level': 0,
        ...(options.wasmOverride ? { 'wasm-override': options.wasmOverride } : {}),
      } as Parameters<typeof setupWithServer>[0]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/SQLITE|database|malformed|not a database/i.test(message)) {
        throw new DevnetSetupError(
          `the devnet database ${options.dbPath} cannot be read (${message.split('\n')[0]}): delete it and run "npm run devnet:seed" to build it again`,
        );
      }
      throw error;
    } finally {
      restoreNewBlock?.();
    }
  });
  readGenesisFromMemory(server.chain);
  const port = Number(server.addr.split(':').pop());
  return {
    wsUrl: `ws://${host}:${port}`,
    httpUrl: `http://${host}:${port}`,
    port,
    chain: server.chain,
    close: () => server.close(),
  };
}
