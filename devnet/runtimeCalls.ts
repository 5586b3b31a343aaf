// chopsticks compiles the runtime anew for every runtime call it makes (its executor keeps no
// compiled module between tasks): on this devnet about 0.35 s of CPU a call, whatever the call,
// against a few milliseconds for the call itself. Building a block made four (initialize, two
// inherents, finalize), and every fastcar and sidecar start asked for the metadata again: most of
// the CPU the test suite spent on the devnet. A task may hold several calls, compiled once; so here
//  - a block is built with its initialization and inherents run in the task of the first call
//    that needs their result (the first transaction, or the finalization of a block without any),
//  - a call whose answer depends on the runtime alone (metadata, version) is answered once per
//    runtime, kept on disk beside the seeded chain for every later process,
//  - any other read-only call is answered once per block while that block's storage is unchanged;
//    the benchmarks turn that off (DEVNET_READS_ONCE_PER_BLOCK=0, package.json): two services ask
//    the devnet the same fee queries in turn there, and the second must not be spared.
// What each call answers is unchanged: the node's answers are the same, only cheaper to make.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Block, Blockchain, runTask, taskHandler } from '@acala-network/chopsticks-core';

import { keepJson } from './keptFiles';
import { CHAIN_DIR } from './paths';

type CallResult = Awaited<ReturnType<Block['call']>>;
type HexString = `0x${string}`;

/** Answers that depend on the runtime's code alone, never on storage. */
const RUNTIME_ONLY = new Set(['Metadata_metadata', 'Metadata_metadata_versions', 'Metadata_metadata_at_version', 'Core_version']);
/** Calls that build or execute blocks, or run offchain work: their writes are the point, never answered twice. */
const WRITING = /^(Core_initialize_block|Core_execute_block|BlockBuilder_|OffchainWorkerApi_)/;

/** Where answers that depend on the runtime alone are kept, by the runtime's hash. */
const RUNTIME_CALLS_DIR = join(CHAIN_DIR, 'runtime-calls');

/** Set while chopsticks builds a block: only then are a new block's first calls held back. */
const building = new AsyncLocalStorage<true>();

interface HeldCall {
  method: string;
  args: HexString[];
}

/** The calls held back on a block being built (its initialization and inherents). */
const held = new WeakMap<Block, HeldCall[]>();
/** Read-only answers at a block, forgotten whenever its storage layers change. */
const perBlock = new WeakMap<Block, Map<string, Promise<CallResult>>>();
const perRuntime = new Map<string, Promise<CallResult>>();
const runtimeHashes = new Map<string, string>();

const NOTHING: CallResult = { result: '0x', storageDiff: [], offchainStorageDiff: [], runtimeLogs: [] } as unknown as CallResult;

function runtimeHash(wasm: string): string {
  let hash = runtimeHashes.get(wasm);
  if (!hash) {
    hash = createHash('sha256').update(wasm).digest('hex').slice(0, 32);
    runtimeHashes.set(wasm, hash);
  }
  return hash;
}

/**
 * Runs held calls (and the one that needs them) in one task, one compilation of the runtime, as
 * Block#call runs one; under chopsticks' rule for inherents (any signature valid), as they held inherents.
 */
async function runHeld(block: Block, calls: HeldCall[]): Promise<CallResult> {
  const chain = block.chain;
  const response = await runTask(
    {
      wasm: (await block.wasm) as HexString,
      calls: calls.map(({ method, args }) => [method, args]),
      mockSignatureHost: chain.mockSignatureHost,
      allowUnresolvedImports: chain.allowUnresolvedImports,
      runtimeLogLevel: chain.runtimeLogLevel,
    },
    taskHandler(block),
    true,
  );
  if ('Call' in response) {
    if (chain.offchainWorker) for (const [key, value] of response.Call.offchainStorageDiff) chain.offchainWorker.set(key, value);
    return response.Call as unknown as CallResult;
  }
  throw new Error(response.Error ?? 'Unexpected response');
}

function readStored(path: string): CallResult | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CallResult;
  } catch {
    return undefined;
  }
}

function store(path: string, answer: CallResult): void {
  try {
    keepJson(path, answer);
  } catch {
    // A read-only checkout: the answer is kept in memory only.
  }
}

async function answerOfRuntime(block: Block, method: string, args: HexString[], call: () => Promise<CallResult>): Promise<CallResult> {
  const key = `${runtimeHash(await block.wasm)}-${method}-${args.join('-')}`;
  let answer = perRuntime.get(key);
  if (!answer) {
    const path = join(RUNTIME_CALLS_DIR, `${key}.json`);
    const stored = readStored(path);
    answer = stored
      ? Promise.resolve(stored)
      : call().then((fresh) => {
          store(path, fresh);
          return fresh;
        });
    perRuntime.set(key, answer);
    answer.catch(() => perRuntime.delete(key));
  }
  return answer;
}

function answerAtBlock(block: Block, method: string, args: HexString[], call: () => Promise<CallResult>): Promise<CallResult> {
  let answers = perBlock.get(block);
  if (!answers) {
    answers = new Map();
    perBlock.set(block, answers);
  }
  const key = `${method}:${args.join(',')}`;
  let answer = answers.get(key);
  if (!answer) {
    answer = call();
    answers.set(key, answer);
    answer.catch(() => answers.delete(key));
  }
  return answer;
}

let installed = false;

/** Patches chopsticks (pinned in package.json) once per process. */
export function economizeRuntimeCalls(): void {
  if (installed) return;
  installed = true;
  const readsOncePerBlock = process.env.DEVNET_READS_ONCE_PER_BLOCK !== '0';
  const blockchain = Blockchain.prototype as unknown as Record<'newBlock' | 'newBlockWithParams', (...args: unknown[]) => Promise<unknown>>;
  for (const name of ['newBlock', 'newBlockWithParams'] as const) {
    const original = blockchain[name];
    blockchain[name] = function (this: unknown, ...args: unknown[]) {
      return building.run(true, () => original.apply(this, args));
    };
  }

  const block = Block.prototype as unknown as {
    call(this: Block, method: string, args: HexString[], inherent?: boolean): Promise<CallResult>;
    pushStorageLayer(this: Block): unknown;
    popStorageLayer(this: Block): unknown;
  };
  for (const name of ['pushStorageLayer', 'popStorageLayer'] as const) {
    const original = block[name];
    block[name] = function (this: Block) {
      perBlock.delete(this);
      return original.call(this);
    };
  }

  const call = block.call;
  block.call = async function (this: Block, method: string, args: HexString[], inherent = false): Promise<CallResult> {
    const pending = held.get(this);
    // Over genesis the builder writes the parent hash after initialization, which must come first.
    if (method === 'Core_initialize_block' && building.getStore() && !pending && this.number > 1) {
      held.set(this, [{ method, args }]);
      return NOTHING;
    }
    if (pending) {
      // The builder pushes each answer's writes as a layer: a held call's writes come with the
      // answer that runs it. Inherents are applied as chopsticks applies them (any signature valid).
      if (method === 'BlockBuilder_apply_extrinsic' && inherent) {
        pending.push({ method, args });
        return NOTHING;
      }
      held.delete(this);
      if (method === 'BlockBuilder_finalize_block') return runHeld(this, [...pending, { method, args }]);
      // A transaction is checked with the chain's own signature rule: the held calls run first,
      // in a task of their own, and their writes are put under the transaction's.
      const before = await runHeld(this, pending);
      (this.pushStorageLayer() as { setAll(diff: unknown): void }).setAll(before.storageDiff);
      return call.call(this, method, args, inherent);
    }
    if (inherent || WRITING.test(method)) return call.call(this, method, args, inherent);
    const run = () => call.call(this, method, args, inherent);
    if (RUNTIME_ONLY.has(method)) return answerOfRuntime(this, method, args, run);
    return readsOncePerBlock ? answerAtBlock(this, method, args, run) : run();
  };
}
