// RFC-78 metadata proofs, made in a worker thread. @polkadot-api/merkleize-metadata is an
// ES module only, which this CommonJS build (and Jest's module sandbox) cannot load in
// the main thread; a worker is plain Node and imports it. The worker also keeps the CPU of
// merkleizing a runtime's metadata (tens of milliseconds or more) off the event loop, and
// keeps each runtime's tree, so a request only computes its proof.
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

/** What RFC-78's extra info names besides the metadata: the same for every block of a runtime. */
export interface ProofInfo {
  specVersion: number;
  specName: string;
  base58Prefix: number;
  decimals: number;
  tokenSymbol: string;
}

export type ProofSubject = { tx: string; txAdditionalSigned?: string } | { callData: string; includedInExtrinsic: string; includedInSignedData: string };

/** The trees the worker keeps: a few runtimes (an upgrade's old and new, and some slack). */
export const KEPT_TREES = 4;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const trees = new Map();
let loaded;
const hex = (bytes) => '0x' + Buffer.from(bytes).toString('hex');
parentPort.on('message', async (m) => {
  try {
    loaded ??= import(workerData.moduleUrl);
    const { merkleizeMetadata } = await loaded;
    if (m.metadata !== undefined) {
      trees.delete(m.key);
      trees.set(m.key, merkleizeMetadata(m.metadata, m.info));
      while (trees.size > workerData.kept) trees.delete(trees.keys().next().value);
    }
    const tree = trees.get(m.key);
    if (!tree) return parentPort.postMessage({ id: m.id, missing: true });
    const s = m.subject;
    if (s === undefined) return parentPort.postMessage({ id: m.id, digest: hex(tree.digest()) });
    const proof = s.tx !== undefined
      ? tree.getProofForExtrinsic(s.tx, s.txAdditionalSigned)
      : tree.getProofForExtrinsicParts(s.callData, s.includedInExtrinsic, s.includedInSignedData);
    parentPort.postMessage({ id: m.id, digest: hex(tree.digest()), proof: hex(proof) });
  } catch (error) {
    parentPort.postMessage({ id: m.id, failed: String(error && error.message || error) });
  }
});
`;

interface Reply {
  id: number;
  missing?: boolean;
  digest?: string;
  proof?: string;
  failed?: string;
}

/** The proof could not be made from the parts given (they are not of this runtime's types). */
export class ProofRefused extends Error {}

export class MetadataProofs {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();

  /** The digest and proof for `subject` with the tree kept under `key`, or 'missing' when the worker keeps none. */
  async prove(key: string, subject: ProofSubject): Promise<{ digest: string; proof: string } | 'missing'> {
    const reply = await this.ask({ key, subject });
    if (reply.missing) return 'missing';
    if (reply.failed !== undefined) throw new ProofRefused(reply.failed);
    return { digest: reply.digest as string, proof: reply.proof as string };
  }

  /** Builds and keeps the tree of `metadata` (V15, hex) under `key`: its digest. */
  async build(key: string, metadata: string, info: ProofInfo): Promise<string> {
    const reply = await this.ask({ key, metadata, info });
    if (reply.failed !== undefined || reply.digest === undefined) throw new Error(`The metadata could not be merkleized: ${reply.failed ?? 'not kept'}`);
    return reply.digest;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private ask(message: Record<string, unknown>): Promise<Reply> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const moduleUrl = pathToFileURL(require.resolve('@polkadot-api/merkleize-metadata')).href;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { moduleUrl, kept: KEPT_TREES } });
    // Idle, it must not keep the process alive.
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      waiter?.resolve(reply);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('The metadata proof worker stopped')));
    this.worker = worker;
    return worker;
  }
}
