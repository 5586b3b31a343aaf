// A real Substrate node beside the chopsticks devnet: polkadot-omni-node (from crates.io, through
// scripts/ensure-node.sh) running the devnet's own committed runtime in dev mode, with archive
// pruning, its RPC server on one port for WebSocket and HTTP. It builds and finalizes a block
// every `blockTimeMs` by itself; its seeded history is made once per machine (devnet/seed.ts's
// extrinsics, sent through the node's transaction pool) and served from a copy.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';

import type { Devnet } from './chain';
import { DevnetSetupError, loadRuntime } from './genesis';
import { DEVNET_DIR, RUNTIME_PATH } from './paths';
import { seedChain, type SeedManifest } from './seed';
import { seedVersion } from './seedVersion';

export const OMNI_NODE_VERSION = '0.24.0';
/** One block a second, each finalized as it is built: the node's `--dev-block-time`. */
export const REAL_BLOCK_TIME_MS = 1000;

/** Where builds, specs and the seeded chain are kept between runs: outside the repository. */
/** fastcar's own cache folder (builds, the real node's spec and chain), as scripts/ensure-node.sh finds it. */
export const FASTCAR_CACHE = process.env.FASTCAR_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'fastcar');
export const REAL_NODE_CACHE = join(FASTCAR_CACHE, 'realnode');

/**
 * The node's binary, or undefined with the one line saying how to get it
 * (scripts/ensure-node.sh: FASTCAR_OMNI_NODE, ../shared/nodes, or a build in the cache).
 */
export function findNodeBinary(): { binary?: string; missing?: string } {
  const script = join(DEVNET_DIR, '..', 'scripts', 'ensure-node.sh');
  try {
    const binary = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    return { binary };
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    return { missing: stderr || `ensure-node.sh failed: ${(error as Error).message}` };
  }
}

/** The binary, or a setup error naming what is missing. */
export function nodeBinary(): string {
  const { binary, missing } = findNodeBinary();
  if (!binary) throw new DevnetSetupError(missing ?? 'no polkadot-omni-node');
  return binary;
}

/**
 * How the chain spec is made: chain-spec-builder's `create` flags before the patch. A
 * development chain (as chopsticks reports the devnet) named for what it is.
 */
export const REAL_CHAIN_NAME = 'fastcar real node (Asset Hub Westend)';
const SPEC_FLAGS = [
  '-n',
  REAL_CHAIN_NAME,
  '-i',
  'fastcar-realnode',
  '-t',
  'development',
  '--relay-chain',
  'westend',
  '--para-id',
  '1000',
  '--properties',
  'tokenSymbol=WND,tokenDecimals=12,ss58Format=42',
];

/**
 * The fee multiplier at genesis: Asset Hub Westend's minimum (0.1, as FixedU128's inner value),
 * where live chains sit. From the default 1.0 it falls a little with every block that is not
 * full, so a fee estimated at one block is not the fee paid a few blocks later; at the minimum
 * it stays, as on a live chain, and a wallet's estimate is what its transaction pays.
 */
const GENESIS_FEE_MULTIPLIER = '100000000000000000';

/** A name for this runtime made into this spec: the spec and the chain seeded on it are kept under it. */
function specKey(): string {
  const { sha256 } = loadRuntime();
  return createHash('sha256')
    .update(`${sha256} ${SPEC_FLAGS.join(' ')} ${GENESIS_FEE_MULTIPLIER}`)
    .digest('hex')
    .slice(0, 16);
}

/**
 * The chain spec, made by the node's own chain-spec-builder from the committed wasm: the
 * runtime's `development` preset without `staking.devStakers` (26,000 generated stakers; the
 * chopsticks devnet leaves them out too) and with the fee multiplier at its minimum.
 */
export function realChainSpec(binary: string): string {
  const path = join(REAL_NODE_CACHE, `spec-${specKey()}.json`);
  if (existsSync(path)) return path;
  mkdirSync(REAL_NODE_CACHE, { recursive: true });
  const work = mkdtempSync(join(REAL_NODE_CACHE, 'spec-'));
  try {
    const preset = execFileSync(binary, ['chain-spec-builder', 'display-preset', '-r', RUNTIME_PATH, '-p', 'development'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Edited as text, not parsed and written again: JSON.parse would turn the preset's 10^18
    // balances into floats, which the builder refuses.
    const withoutStakers = preset.replace(/"devStakers":\s*\[[^\]]*\],?/, '').replace(/,(\s*})/g, '$1');
    if (withoutStakers.includes('devStakers') || !withoutStakers.trimEnd().endsWith('}')) {
      throw new DevnetSetupError('the development preset is not in a shape this script knows');
    }
    const patch = `${withoutStakers.trimEnd().slice(0, -1)},"transactionPayment":{"multiplier":"${GENESIS_FEE_MULTIPLIER}"}}`;
    writeFileSync(join(work, 'patch.json'), patch);
    const specPath = join(work, 'spec.json');
    execFileSync(binary, ['chain-spec-builder', '-c', specPath, 'create', ...SPEC_FLAGS, '-s', '-r', RUNTIME_PATH, 'patch', join(work, 'patch.json')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    renameSync(specPath, path);
    return path;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface RealNodeOptions {
  binary: string;
  spec: string;
  basePath: string;
  /** The RPC port asked for; 0 or none: one the system picks. The node's log says where it really listens (below). */
  rpcPort?: number;
  blockTimeMs?: number;
  /** More flags for the node: its RPC server's limits, as a test or an operator sets them. */
  args?: string[];
  /** How long its RPC server may take to answer at start (the runtime is compiled first: longer on a busy machine). Default 120 s. */
  startTimeoutMs?: number;
}

export interface RealNode {
  wsUrl: string;
  httpUrl: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** The node's log so far (its stderr). */
  log(): string;
  stop(): Promise<void>;
}

/** A probe that gives up within two seconds: a port held by something that never answers must not hold the start up. */
function rpcAnswers(url: string): Promise<boolean> {
  return nodeCall<unknown>(url, 'chain_getFinalizedHead', [], AbortSignal.timeout(2000)).then(
    (head) => typeof head === 'string',
    () => false,
  );
}

/** The runtime is compiled at every start: about 20 s on a quiet 2-core machine, over a minute on a busy one. */
const START_TIMEOUT_MS = 300_000;

/** Starts the node and resolves once its RPC server answers. */
export async function startRealNode(options: RealNodeOptions): Promise<RealNode> {
  const args = [
    '--chain',
    options.spec,
    '--dev',
    '--dev-block-time',
    String(options.blockTimeMs ?? REAL_BLOCK_TIME_MS),
    '--base-path',
    options.basePath,
    '--state-pruning',
    'archive',
    '--blocks-pruning',
    'archive',
    '--rpc-port',
    String(options.rpcPort ?? 0),
    '--rpc-cors',
    'all',
    // Alone on loopback: no peers to find, no port of its own beyond RPC.
    '--listen-addr',
    '/ip4/127.0.0.1/tcp/0',
    '--no-prometheus',
    '--no-telemetry',
    '--no-mdns',
    ...(options.args ?? []),
  ];
  const child = spawn(options.binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  let port: number | undefined;
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-64 * 1024);
    port ??= rpcPortIn(log);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const deadline = Date.now() + startTimeoutMs;
  const waitingFor = () => (port === undefined ? 'its RPC server to start' : `an answer on 127.0.0.1:${port}`);
  while (port === undefined || !(await rpcAnswers(`http://127.0.0.1:${port}`))) {
    if (port !== undefined && options.rpcPort && port !== options.rpcPort) {
      child.kill('SIGKILL');
      // It would listen on [::1] there and on another port here: `localhost` would reach whichever comes first.
      throw new DevnetSetupError(`port ${options.rpcPort} on 127.0.0.1 is taken: stop what uses it or set DEVNET_PORT to a free port`);
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new DevnetSetupError(`polkadot-omni-node exited (${child.exitCode ?? child.signalCode}) before its RPC answered: ${log.slice(-800)}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new DevnetSetupError(`polkadot-omni-node: waited ${startTimeoutMs / 1000} s for ${waitingFor()}: ${log.slice(-800)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    httpUrl: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    child,
    log: () => log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}

/**
 * The IPv4 loopback port the node's RPC server listens on, read from its log ("Running JSON-RPC
 * server: addr=127.0.0.1:P,[::1]:Q"). Not the port asked for: when that one is taken on 127.0.0.1
 * the node listens there on [::1] only and takes a random port on 127.0.0.1, saying so only here.
 */
export function rpcPortIn(log: string): number | undefined {
  // Up to the whitespace after it: a line cut between two chunks of the log is read once whole.
  const line = /Running JSON-RPC server: addr=(\S+)\s/.exec(log);
  const ipv4 = line?.[1].split(',').find((address) => address.startsWith('127.0.0.1:'));
  return ipv4 === undefined ? undefined : Number(ipv4.slice('127.0.0.1:'.length));
}

/** One JSON-RPC call over the node's HTTP port: all the seeding and the test door need. */
export async function nodeCall<T>(httpUrl: string, method: string, params: unknown[] = [], signal?: AbortSignal): Promise<T> {
  const response = await fetch(httpUrl, {
    signal,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await response.json()) as { result?: T; error?: { code: number; message: string; data?: unknown } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}${answer.error.data ? ` (${JSON.stringify(answer.error.data)})` : ''}`);
  return answer.result as T;
}

/**
 * Sends extrinsics to the node's pool in one batch request: one connection, where a request
 * each would open hundreds at once (past the node's 100 by default).
 */
async function submitAll(httpUrl: string, extrinsics: string[]): Promise<void> {
  const response = await fetch(httpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(extrinsics.map((tx, id) => ({ jsonrpc: '2.0', id, method: 'author_submitExtrinsic', params: [tx] }))),
  });
  const answers = (await response.json()) as { error?: { message: string } }[];
  const refused = answers.find((answer) => answer.error);
  if (refused?.error) throw new DevnetSetupError(`the node refused an extrinsic: ${refused.error.message}`);
}

/** Whether an extrinsic (hex, with its length prefix) is signed: the version byte's top bit. */
function isSigned(extrinsic: string): boolean {
  const first = Number.parseInt(extrinsic.slice(2, 4), 16);
  const prefixBytes = [1, 2, 4, 1 + (first >> 2) + 4][first & 3];
  return (Number.parseInt(extrinsic.slice(2 + prefixBytes * 2, 4 + prefixBytes * 2), 16) & 0x80) !== 0;
}

export interface BuiltBlock {
  number: number;
  hash: string;
  extrinsics: Promise<string[]>;
}

/**
 * What chopsticks' `chain.newBlock` gives devnet/seed.ts and the tests, on a node that builds
 * its own blocks. `newBlock({transactions})` sends them to the pool right after a block was
 * imported (so all are in the pool before the next is proposed) and answers the finalized block
 * that holds them; `newBlock()` answers the first block since the last one answered that holds
 * what the pool had at the call, or, with nothing there, a signed extrinsic, or else the next
 * block built: so a transaction submitted just before, and already built into a block, is found.
 */
export function poolFedChain(httpUrl: string, start: { number: number; hash: string }) {
  let head = start;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const finalizedNumber = async () =>
    Number.parseInt((await nodeCall<{ number: string }>(httpUrl, 'chain_getHeader', [await nodeCall<string>(httpUrl, 'chain_getFinalizedHead')])).number, 16);
  const untilFinalized = async (number: number) => {
    let finalized = await finalizedNumber();
    while (finalized < number) {
      await pause(50);
      finalized = await finalizedNumber();
    }
    return finalized;
  };
  const blockAt = async (number: number) => {
    const hash = await nodeCall<string>(httpUrl, 'chain_getBlockHash', [number]);
    const block = await nodeCall<{ block: { extrinsics: string[] } }>(httpUrl, 'chain_getBlock', [hash]);
    return { number, hash, extrinsics: block.block.extrinsics };
  };
  return {
    get head() {
      return head;
    },
    async newBlock(options?: { transactions?: string[] }): Promise<BuiltBlock> {
      let wanted = options?.transactions ?? [];
      let from = head.number;
      const calledAt = await finalizedNumber();
      if (wanted.length) {
        from = await untilFinalized(calledAt + 1);
        await submitAll(httpUrl, wanted);
      } else {
        wanted = await nodeCall<string[]>(httpUrl, 'author_pendingExtrinsics');
      }
      for (let number = from + 1; ; number++) {
        await untilFinalized(number);
        const block = await blockAt(number);
        const found = wanted.length ? wanted.some((tx) => block.extrinsics.includes(tx)) : number > calledAt || block.extrinsics.some(isSigned);
        if (found) {
          head = { number, hash: block.hash };
          return { number, hash: block.hash, extrinsics: Promise.resolve(block.extrinsics) };
        }
        if (wanted.length && number > Math.max(from, calledAt) + 5)
          throw new DevnetSetupError(`the node included none of ${wanted.length} extrinsics in 5 blocks`);
      }
    },
  };
}

/** The seeded chain on the real node: its database folder and manifest, kept in the cache. */
interface SeededChain {
  dbDir: string;
  manifest: SeedManifest;
}

function seededChainDir(): string {
  return join(REAL_NODE_CACHE, `seeded-${OMNI_NODE_VERSION}-${specKey()}-${seedVersion() ?? 'packaged'}`);
}

/**
 * The seeded chain as the repository keeps it (`npm run devnet:seed -- --real` writes it), under
 * the same name: a fresh machine (CI) unpacks it in a second instead of seeding for minutes. One
 * made by another node version, runtime or seed has another name, and is not used.
 */
function packedSeededChain(): string {
  return join(DEVNET_DIR, 'real-chain', `${basename(seededChainDir())}.tar.gz`);
}

/** The kept copy unpacked into the cache, when the repository has one for this node, runtime and seed. */
function unpackSeededChain(dir: string): boolean {
  const packed = packedSeededChain();
  if (!existsSync(packed)) return false;
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  execFileSync('tar', ['-xzf', packed, '-C', partial]);
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return true;
}

/** The seeded chain (seeded first if this machine has none) kept in the repository (devnet/real-chain/), older copies removed. */
export async function packSeededChain(binary: string, progress?: (line: string) => void): Promise<string> {
  await ensureSeededRealChain(binary, progress);
  const packed = packedSeededChain();
  const folder = dirname(packed);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  // Names and times left out: the same chain packs to the same bytes.
  execFileSync('tar', ['--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '-I', 'gzip -n', '-cf', packed, '-C', seededChainDir(), '.']);
  return packed;
}

/** The seeded chain, made the first time (about four minutes: 210 blocks at one a second). */
export async function ensureSeededRealChain(binary: string, progress?: (line: string) => void): Promise<SeededChain> {
  const dir = seededChainDir();
  const manifestPath = join(dir, 'manifest.json');
  const kept = () => ({ dbDir: join(dir, 'db'), manifest: JSON.parse(readFileSync(manifestPath, 'utf8')) as SeedManifest });
  if (existsSync(manifestPath)) return kept();
  if (unpackSeededChain(dir)) {
    progress?.(`real node: the seeded chain unpacked from ${relative(process.cwd(), packedSeededChain())}`);
    return kept();
  }
  const spec = realChainSpec(binary);
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const node = await startRealNode({ binary, spec, basePath: join(partial, 'db') });
  try {
    const genesis = await nodeCall<string>(node.httpUrl, 'chain_getBlockHash', [0]);
    const chain = poolFedChain(node.httpUrl, { number: 0, hash: genesis });
    const stand = { wsUrl: node.wsUrl, httpUrl: node.httpUrl, port: node.port, chain } as unknown as Devnet;
    const manifest = await seedChain(stand, (done, total, label) => {
      if (label !== 'empty' || done % 50 === 0) progress?.(`real node seeding: block ${done}/${total} ${label}`);
    });
    await node.stop();
    writeFileSync(join(partial, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
    return { dbDir: join(dir, 'db'), manifest };
  } catch (error) {
    await node.stop();
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

export interface ServedRealChain {
  node: RealNode;
  manifest: SeedManifest;
  close(): Promise<void>;
}

/**
 * The seeded chain on a real node of its own, from a scratch copy of the kept database (a
 * node writes to its database: every run starts from the same history). `args` adds node flags.
 */
export async function serveRealChain(
  options: { binary?: string; rpcPort?: number; blockTimeMs?: number; args?: string[]; startTimeoutMs?: number; progress?: (line: string) => void } = {},
): Promise<ServedRealChain> {
  const binary = options.binary ?? nodeBinary();
  const seeded = await ensureSeededRealChain(binary, options.progress);
  const scratch = mkdtempSync(join(tmpdir(), 'fastcar-realnode-'));
  cpSync(seeded.dbDir, join(scratch, 'db'), { recursive: true });
  try {
    const node = await startRealNode({
      binary,
      spec: realChainSpec(binary),
      basePath: join(scratch, 'db'),
      rpcPort: options.rpcPort,
      blockTimeMs: options.blockTimeMs,
      args: options.args,
      startTimeoutMs: options.startTimeoutMs,
    });
    let closing: Promise<void> | undefined;
    return {
      node,
      manifest: seeded.manifest,
      close: () => {
        closing ??= node.stop().then(() => rmSync(scratch, { recursive: true, force: true }));
        return closing;
      },
    };
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}
