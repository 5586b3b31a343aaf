// The node family's reads: what the node says of itself, as sidecar's /node routes
// answer it, every call of an answer in one wave.
import { sidecarJsonOf } from '../../decode/rpcJson';
import type { NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import type { RuntimeVersionJson } from '../shared/at/blockAt';
import type { NodeFacts } from '../nodeFacts';
import type { RuntimeRegistry } from '../runtimes';
import { TransactionPool } from './transactionPool';

/** What sidecar says when the node refuses system_peers (an unsafe method most public nodes keep off). */
const NO_PEERS = 'Cannot query system_peers from node.';

export class NodeReads {
  constructor(
    private readonly node: NodeClient,
    private readonly facts: NodeFacts,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  /** The pending extrinsics; `includeFee`, with their tips, fee estimates and priorities (./transactionPool.ts). */
  transactionPool(includeFee: boolean): Promise<string> {
    return new TransactionPool(this.node, this.runtimes).list(includeFee);
  }

  /** The node's software, its runtime's implementation (at its best block) and its chain. */
  async version(): Promise<string> {
    const [runtime, chain, clientVersion] = await wave([
      this.node.send<RuntimeVersionJson>('state_getRuntimeVersion', []),
      this.facts.chain(),
      this.facts.version(),
    ] as const);
    return JSON.stringify({ clientVersion, clientImplName: runtime.implName, chain });
  }

  /** Its roles, peers and addresses (system_peers asked alongside: refused, it is said so). */
  async network(): Promise<string> {
    const [health, localPeerId, nodeRoles, localListenAddresses, peers] = await wave([
      this.node.send<unknown>('system_health', []),
      this.node.send<string>('system_localPeerId', []),
      this.node.send<unknown>('system_nodeRoles', []),
      this.node.send<string[]>('system_localListenAddresses', []),
      this.node.send<unknown>('system_peers', []).catch(() => undefined),
    ] as const);
    const { peers: numPeers, isSyncing, shouldHavePeers } = sidecarJsonOf('Health', health) as { peers: string; isSyncing: boolean; shouldHavePeers: boolean };
    return JSON.stringify({
      nodeRoles: sidecarJsonOf('Vec<NodeRole>', nodeRoles),
      numPeers,
      isSyncing,
      shouldHavePeers,
      localPeerId,
      localListenAddresses,
      peersInfo: peers === undefined ? NO_PEERS : sidecarJsonOf('Vec<PeerInfo>', peers),
    });
  }
}
