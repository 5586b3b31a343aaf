// The services over one chain's node, made together so they share one id resolver.
// What they keep (the cache, the runtimes, the builds in flight, the windows of
// height hashes, what the runtime says of fee details) is made once; the
// services themselves are cheap, and each request gets its own over its own
// view of the node, so its calls are counted (and batched over HTTP) as its own.
import type { BuildLeases } from '../cache/buildLeases';
import { SingleFlight } from '../cache/singleFlight';
import type { TieredCache } from '../cache/tieredCache';
import type { Hex, NodeClient } from '../rpc/nodeClient';
import { StorageQueries } from '../rpc/storageQueries';
import type { RequestStats } from '../rpc/requestStats';
import { AccountAssets } from './accounts/assetBalances';
import { AccountBalances } from './accounts/accountBalances';
import { AccountProxies } from './accounts/proxyInfo';
import { AccountVesting } from './accounts/vestingInfo';
import { AhmInfo } from './ahm/ahmInfo';
import { PalletAssets } from './palletAssets/palletAssets';
import { OngoingReferenda } from './referenda/ongoingReferenda';
import { ParasReads } from './paras/parasReads';
import { CoretimeReads } from './coretime/coretimeReads';
import { StakingReads } from './staking/stakingReads';
import { StakingInfo } from './staking/stakingInfo';
import { SharedEraReads } from './staking/eraExposures';
import { StakingPayouts } from './staking/stakingPayouts';
import { BlockIds } from './shared/at/blockIds';
import { BlocksService, type SharedBuildState } from './blocks/blocksService';
import { ChainReads } from './blocks/chainReads';
import { FeeDetailsKnowledge } from './feeRules';
import { HashWindows } from './shared/at/hashWindows';
import type { FinalizedHead } from './finalizedHead';
import { RuntimeMetadata } from './metadata';
import { NodeFacts } from './nodeFacts';
import { NodeReads } from './node/nodeReads';
import { PalletReads } from './pallets/palletReads';
import { RuntimeCode } from './runtime/runtimeCode';
import { RuntimeReads } from './runtime/runtimeReads';
import { RuntimeRegistry } from './runtimes';
import { TransactionMaterial } from './transaction/material';
import { MetadataBlobs } from './transaction/metadataBlob';
import { MetadataProofs } from './transaction/metadataProofs';
import { FeeEstimates } from './transaction/feeEstimate';
import { TransactionSubmitter } from './transaction/transactionSubmitter';
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
  /** A pallet's items from the runtime's metadata, and storage items' values. */
  pallets: PalletReads;
  /** The chain's assets themselves: details, metadata, foreign assets, asset-conversion pools. */
  palletAssets: PalletAssets;
  staking: StakingReads;
  /** A stash's staking summary (/accounts/{id}/staking-info). */
  stakingInfo: StakingInfo;
  /** An account's payouts over eras (/accounts/{id}/staking-payouts). */
  stakingPayouts: StakingPayouts;
  ahm: AhmInfo;
  referenda: OngoingReferenda;
  paras: ParasReads;
  coretime: CoretimeReads;
  feeEstimates: FeeEstimates;
  metadataBlobs: MetadataBlobs;
  submitter: TransactionSubmitter;
  dryRuns: DryRuns;
  /** The same services for one request: their node calls counted in `stats`. */
  forRequest(stats: RequestStats): ChainServices;
}

/** The services of a chain as made once: what they hold for everyone is let go with `close`. */
export interface ChainServicesRoot extends ChainServices {
  /** Stops the metadata proof worker (its trees are large): the chain is closing. */
  close(): Promise<void>;
}

/** `leases`: with Redis, final block answers are built once across the replicas sharing it. */
export function chainServices(node: NodeClient, finalized: FinalizedHead, cache: TieredCache, genesisHash: Hex, leases?: BuildLeases): ChainServicesRoot {
  // A runtime's load is shared by every request that waits on it: counted by none.
  const runtimes = new RuntimeRegistry(node);
  const shared: SharedBuildState = { builds: new SingleFlight(), feeDetails: new FeeDetailsKnowledge(), leases };
  const windows = new HashWindows();
  // What the node says of itself is asked once for everyone: counted by none.
  const facts = new NodeFacts(node);
  // Metadata and code builds in flight, joined by every request that asks for the same runtime's.
  const metadataBuilds = new SingleFlight<string>();
  const codeFetches = new SingleFlight<string>();
  const xcmVersions = new SafeXcmVersions();
  const feeEstimatesInFlight = new SingleFlight<string>();
  // Storage reads at one block in the same turn, of every request: one call.
  const storageQueries = new StorageQueries();
  // Eras' exposure pages being read, joined by every payouts request for the same eras at the same block.
  const eraReads = new SharedEraReads();
  // RFC-78 trees, one per runtime, kept in one worker for every request; their builds in flight.
  const metadataProofs = new MetadataProofs();
  const metadataTrees = new SingleFlight<string>();
  const over = (rpc: NodeClient): ChainServices => {
    const ids = new BlockIds(rpc, finalized, cache, windows);
    const metadata = new RuntimeMetadata(rpc, cache, metadataBuilds);
    return {
      ids,
      blocks: new BlocksService(rpc, runtimes, finalized, cache, genesisHash, ids, shared),
      reads: new ChainReads(rpc, runtimes, finalized, cache, ids),
      runtime: new RuntimeReads(rpc, ids, cache, facts, metadata, new RuntimeCode(rpc, cache, codeFetches)),
      node: new NodeReads(rpc, facts, runtimes),
      material: new TransactionMaterial(rpc, ids, cache, facts, metadata, genesisHash),
      accounts: new AccountBalances(rpc, ids, cache, runtimes, storageQueries),
      accountAssets: new AccountAssets(rpc, ids, cache, runtimes),
      vesting: new AccountVesting(rpc, ids, cache, runtimes),
      proxies: new AccountProxies(rpc, ids, cache, runtimes),
      pallets: new PalletReads(rpc, ids, cache, runtimes),
      palletAssets: new PalletAssets(rpc, ids, cache, runtimes),
      staking: new StakingReads(rpc, ids, cache, runtimes),
      stakingInfo: new StakingInfo(rpc, ids, cache, runtimes),
      stakingPayouts: new StakingPayouts(rpc, ids, cache, runtimes, genesisHash, eraReads),
      ahm: new AhmInfo(rpc, ids, cache, runtimes),
      referenda: new OngoingReferenda(rpc, ids, cache, runtimes),
      paras: new ParasReads(rpc, ids, cache, runtimes),
      coretime: new CoretimeReads(rpc, ids, cache, runtimes),
      feeEstimates: new FeeEstimates(rpc, ids, cache, runtimes, feeEstimatesInFlight),
      metadataBlobs: new MetadataBlobs(rpc, ids, cache, runtimes, metadata, metadataProofs, metadataTrees),
      submitter: new TransactionSubmitter(rpc, ids, cache, runtimes),
      dryRuns: new DryRuns(rpc, ids, cache, runtimes, xcmVersions),
      forRequest: (stats) => over(node.forRequest(stats)),
    };
  };
  return { ...over(node), close: () => metadataProofs.close() };
}
