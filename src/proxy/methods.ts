// Which methods the proxy lets through. By default the node's own idea of safe:
// reads, and submitting transactions. Everything else (dev_*, key management,
// peer and log-filter changes, offchain storage writes, ...) is answered "method
// not found" without reaching the node, unless the operator allows it by name.
// Names are looked up in Sets and Maps only, never as properties of a plain
// object: `constructor` or `__proto__` are unknown methods like any other.

export interface SubscriptionKind {
  notification: string;
  unsubscribe: string;
  /** Shared: one upstream subscription serves every client asking the same. Else one per client. */
  shared: boolean;
}

const SUBSCRIPTIONS = new Map<string, SubscriptionKind>([
  ['chain_subscribeNewHeads', { notification: 'chain_newHead', unsubscribe: 'chain_unsubscribeNewHeads', shared: true }],
  ['chain_subscribeNewHead', { notification: 'chain_newHead', unsubscribe: 'chain_unsubscribeNewHead', shared: true }],
  ['chain_subscribeFinalizedHeads', { notification: 'chain_finalizedHead', unsubscribe: 'chain_unsubscribeFinalizedHeads', shared: true }],
  ['chain_subscribeFinalisedHeads', { notification: 'chain_finalizedHead', unsubscribe: 'chain_unsubscribeFinalisedHeads', shared: true }],
  ['chain_subscribeAllHeads', { notification: 'chain_allHead', unsubscribe: 'chain_unsubscribeAllHeads', shared: true }],
  ['chain_subscribeRuntimeVersion', { notification: 'state_runtimeVersion', unsubscribe: 'chain_unsubscribeRuntimeVersion', shared: true }],
  ['state_subscribeRuntimeVersion', { notification: 'state_runtimeVersion', unsubscribe: 'state_unsubscribeRuntimeVersion', shared: true }],
  ['state_subscribeStorage', { notification: 'state_storage', unsubscribe: 'state_unsubscribeStorage', shared: true }],
  // A transaction's status is about that client's transaction alone.
  ['author_submitAndWatchExtrinsic', { notification: 'author_extrinsicUpdate', unsubscribe: 'author_unwatchExtrinsic', shared: false }],
]);

const UNSUBSCRIBE = new Set([...SUBSCRIPTIONS.values()].map((kind) => kind.unsubscribe));

/** Calls with one answer that read the chain, or submit a transaction. */
const SAFE_CALLS = [
  'chain_getBlock',
  'chain_getBlockHash',
  'chain_getHead',
  'chain_getHeader',
  'chain_getFinalizedHead',
  'chain_getFinalisedHead',
  'chain_getRuntimeVersion',
  'state_call',
  'state_callAt',
  'state_getKeysPaged',
  'state_getKeysPagedAt',
  'state_getMetadata',
  'state_getRuntimeVersion',
  'state_getStorage',
  'state_getStorageAt',
  'state_getStorageHash',
  'state_getStorageHashAt',
  'state_getStorageSize',
  'state_getStorageSizeAt',
  'state_queryStorageAt',
  'state_getReadProof',
  'state_getChildReadProof',
  'childstate_getStorage',
  'childstate_getStorageHash',
  'childstate_getStorageSize',
  'childstate_getKeysPaged',
  'childstate_getStorageEntries',
  'system_chain',
  'system_name',
  'system_version',
  'system_properties',
  'system_chainType',
  'system_health',
  'system_syncState',
  'system_accountNextIndex',
  'system_nodeRoles',
  'payment_queryInfo',
  'payment_queryFeeDetails',
  'rpc_methods',
  'author_submitExtrinsic',
  'transaction_v1_broadcast',
  'transaction_v1_stop',
];

export interface MethodPolicyOptions {
  /** Added to the defaults: exact names, or `prefix_*`. */
  allow?: string[];
  /** Taken away, even from the defaults: exact names, or `prefix_*`. */
  deny?: string[];
}

function matcher(patterns: string[]): (method: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return (method) => exact.has(method) || prefixes.some((prefix) => method.startsWith(prefix));
}

export class MethodPolicy {
  private allowed: (method: string) => boolean = () => false;
  private denied: (method: string) => boolean = () => false;
  private readonly defaults = new Set([...SAFE_CALLS, ...SUBSCRIPTIONS.keys(), ...UNSUBSCRIBE]);

  constructor(options: MethodPolicyOptions = {}) {
    this.update(options);
  }

  /** New lists of allowed and refused methods (a reload), for every call from now on. */
  update(options: MethodPolicyOptions): void {
    this.allowed = matcher(options.allow ?? []);
    this.denied = matcher(options.deny ?? []);
  }

  permits(method: string): boolean {
    if (this.denied(method)) return false;
    return this.defaults.has(method) || this.allowed(method);
  }

  subscription(method: string): SubscriptionKind | undefined {
    return SUBSCRIPTIONS.get(method);
  }

  isUnsubscribe(method: string): boolean {
    return UNSUBSCRIBE.has(method);
  }

  /** Checks the parameters of calls that are safe only with some of them. */
  paramsProblem(method: string, params: unknown[]): string | undefined {
    // Without keys a node streams every storage change: Substrate refuses it to strangers too.
    if (method === 'state_subscribeStorage' && (!Array.isArray(params[0]) || params[0].length === 0)) {
      return 'state_subscribeStorage needs a non-empty list of keys';
    }
    return undefined;
  }
}
