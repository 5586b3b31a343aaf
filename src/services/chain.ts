// The services over one chain's node, made together so they share one id resolver.
// What they keep (the cache, the runtimes, the builds in flight, the windows of
// height hashes, what the runtime says of fee details) is made once; the
// services themselves are cheap, and each request gets its own over its own
// view of the node, so its calls are counted (and batched over HTTP) as its own.
import { SingleFlight } from '../cache/singleFlight';
import type { TieredCache } from '../cache/tieredCache';
import type { Hex, NodeClient } from '../rpc/nodeClient';
import type { RequestStats } from '../rpc/requestStats';
import { AccountAssets } from './accounts/assetBalances';
import { AccountBalances } from './accounts/balanceInfo';
import { AccountProxies } from './accounts/proxyInfo';
import { AccountVesting } from './accounts/vestingInfo';
import { BlockIds } from './blockIds';
import { BlocksService, type SharedBuildState } from './blocks/blocksService';
import { ChainReads } from './blocks/chainReads';
import { FeeDetailsKnowledge } from './feeRules';
import { HashWindows } from './hashWindows';
import type { FinalizedHead } from './finalizedHead';
import { RuntimeMetadata } from './metadata';
import { NodeFacts } from './nodeFacts';
import { NodeReads } from './node/nodeReads';
import { RuntimeCode } from './runtime/runtimeCode';
import { RuntimeReads } from './runtime/runtimeReads';
import { RuntimeRegistry } from './runtimes';
import { TransactionMaterial } from './transaction/material';
import { MetadataBlobs } from './transaction/metadataBlob';
import { MetadataProofs } from './transaction/metadataProofs';
import { FeeEstimates } from './transaction/feeEstimate';
import { TransactionSubmitter } from './transaction/submit';
import { DryRuns } from './transaction/dryRun';
import { SafeXcmVersions } from './transaction/safeXcmVersion';

export interface ChainServices {
  ids: BlockIds;
  blocks: BlocksService;
  reads: ChainReads;
  runtime: RuntimeReads;
  node: NodeReads;
  material: TransactionMaterial;
  accounts: AccountBalances;
  /** An account's assets (Assets, PoolAssets, ForeignAssets) and approvals. */
  accountAssets: AccountAssets;
  vesting: AccountVesting;
  proxies: AccountProxies;
  feeEstimates: FeeEstimates;
  metadataBlobs: MetadataBlobs;
  submitter: TransactionSubmitter;
  dryRuns: DryRuns;
  /** The same services for one request: their node calls counted in `stats`. */
  forRequest(stats: RequestStats): ChainServices;
}

/** `make`'s value, made the first time it is asked for. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

export function chainServices(node: NodeClient, finalized: FinalizedHead, cache: TieredCache, genesisHash: Hex): ChainServices {
  // A runtime's load is shared by every request that waits on it: counted by none.
  const runtimes = new RuntimeRegistry(node);
  const shared: SharedBuildState = { builds: new SingleFlight(), feeDetails: new FeeDetailsKnowledge() };
  const windows = new HashWindows();
  // What the node says of itself is asked once for everyone: counted by none.
  const facts = new NodeFacts(node);
  // Metadata and code builds in flight, joined by every request that asks for the same runtime's.
  const metadataBuilds = new SingleFlight<string>();
  const codeFetches = new SingleFlight<string>();
  const xcmVersions = new SafeXcmVersions();
  const feeEstimatesInFlight = new SingleFlight<string>();
  // RFC-78 trees, one per runtime, kept in one worker for every request; their builds in flight.
  const metadataProofs = new MetadataProofs();
  const metadataTrees = new SingleFlight<string>();
  const over = (rpc: NodeClient): ChainServices => {
    const ids = once(() => new BlockIds(rpc, finalized, cache, windows));
    const metadata = once(() => new RuntimeMetadata(rpc, cache, metadataBuilds));
    const blocks = once(() => new BlocksService(rpc, runtimes, finalized, cache, genesisHash, ids(), shared));
    const reads = once(() => new ChainReads(rpc, runtimes, finalized, cache, ids()));
    const runtime = once(() => new RuntimeReads(rpc, ids(), cache, facts, metadata(), new RuntimeCode(rpc, cache, codeFetches)));
    const nodeReads = once(() => new NodeReads(rpc, facts, runtimes));
    const material = once(() => new TransactionMaterial(rpc, ids(), cache, facts, metadata(), genesisHash));
    const accounts = once(() => new AccountBalances(rpc, ids(), cache, runtimes));
    const accountAssets = once(() => new AccountAssets(rpc, ids(), cache, runtimes));
    const vesting = once(() => new AccountVesting(rpc, ids(), cache, runtimes));
    const proxies = once(() => new AccountProxies(rpc, ids(), cache, runtimes));
    const feeEstimates = once(() => new FeeEstimates(rpc, ids(), cache, runtimes, feeEstimatesInFlight));
    const metadataBlobs = once(() => new MetadataBlobs(rpc, ids(), cache, runtimes, metadata(), metadataProofs, metadataTrees));
    const submitter = once(() => new TransactionSubmitter(rpc, ids(), cache, runtimes));
    const dryRuns = once(() => new DryRuns(rpc, ids(), cache, runtimes, xcmVersions));
    // Made on first use: a request builds only the services its route reads.
    return {
      get ids() {
        return ids();
      },
      get blocks() {
        return blocks();
      },
      get reads() {
        return reads();
      },
      get runtime() {
        return runtime();
      },
      get node() {
        return nodeReads();
      },
      get material() {
        return material();
      },
      get accounts() {
        return accounts();
      },
      get accountAssets() {
        return accountAssets();
      },
      get vesting() {
        return vesting();
      },
      get proxies() {
        return proxies();
      },
      get feeEstimates() {
        return feeEstimates();
      },
      get metadataBlobs() {
        return metadataBlobs();
      },
      get submitter() {
        return submitter();
      },
      get dryRuns() {
        return dryRuns();
      },
      forRequest: (stats) => over(node.forRequest(stats)),
    };
  };
  return over(node);
}
