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
  /** State the node keeps for one connection: the subscription and the calls naming it stay on that node (stickyRoutes.ts). */
  perNode?: PerNodeKind;
}

/** How a subscription that lives on one node ends, and what its unsubscribe call answers. */
export interface PerNodeKind {
  /** The last notification its client gets when the node holding it is lost. */
  lost: unknown;
  /** Whether a notification is its last (the node sends no more after it). */
  isLast: (value: unknown) => boolean;
  /** A chainHead follow (a node holds only a few on one connection). */
  follow?: boolean;
  /** The unsubscribe call's answer; `held`: whether the client held that subscription. */
  unsubscribed: (held: boolean) => unknown;
  /** Or, for a subscription the client did not hold, this error. */
  unknownError?: string;
}

const eventOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? (value as { event?: unknown }).event : undefined);
const oneOf = (...events: string[]) => {
  const last = new Set(events);
  return (value: unknown) => last.has(eventOf(value) as string);
};
const LOST = 'the node holding it was lost';
const NULL = () => null;

/** The new JSON-RPC API's stateful subscriptions: spec shapes of their ends (paritytech/json-rpc-interface-spec). */
const FOLLOW: PerNodeKind = { lost: { event: 'stop' }, isLast: oneOf('stop'), follow: true, unsubscribed: NULL };
const TRANSACTION_WATCH: PerNodeKind = {
  lost: { event: 'dropped', error: LOST },
  isLast: oneOf('finalized', 'error', 'invalid', 'dropped'),
  unsubscribed: NULL,
  unknownError: 'Invalid subscription id: no transaction watched under it',
};
const ARCHIVE_STORAGE: PerNodeKind = { lost: { event: 'storageError', error: LOST }, isLast: oneOf('storageDone', 'storageError'), unsubscribed: NULL };
const ARCHIVE_DIFF: PerNodeKind = {
  lost: { event: 'storageDiffError', error: LOST },
  isLast: oneOf('storageDiffDone', 'storageDiffError'),
  unsubscribed: NULL,
};
/** Legacy statuses after which a node sends nothing more about the transaction. */
const FINAL_STATUS = new Set(['dropped', 'invalid', 'finalized', 'usurped', 'finalityTimeout']);
const LEGACY_WATCH: PerNodeKind = {
  lost: 'dropped',
  isLast: (value) => FINAL_STATUS.has(typeof value === 'string' ? value : Object.keys((value as object | null) ?? {})[0]),
  unsubscribed: (held) => held,
};

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
  ['author_submitAndWatchExtrinsic', { notification: 'author_extrinsicUpdate', unsubscribe: 'author_unwatchExtrinsic', shared: false, perNode: LEGACY_WATCH }],
  ['chainHead_v1_follow', { notification: 'chainHead_v1_followEvent', unsubscribe: 'chainHead_v1_unfollow', shared: false, perNode: FOLLOW }],
  [
    'transactionWatch_v1_submitAndWatch',
    { notification: 'transactionWatch_v1_watchEvent', unsubscribe: 'transactionWatch_v1_unwatch', shared: false, perNode: TRANSACTION_WATCH },
  ],
  ['archive_v1_storage', { notification: 'archive_v1_storageEvent', unsubscribe: 'archive_v1_stopStorage', shared: false, perNode: ARCHIVE_STORAGE }],
  ['archive_v1_storageDiff', { notification: 'archive_v1_storageDiffEvent', unsubscribe: 'archive_v1_stopStorageDiff', shared: false, perNode: ARCHIVE_DIFF }],
]);

/**
 * Calls that name a chainHead follow (their first parameter) and what each answers when the
 * client holds no such follow (invalid or stale, in the spec's words): the node is not asked.
 */
export const FOLLOW_CALLS = new Map<string, unknown>([
  ['chainHead_v1_body', { result: 'limitReached' }],
  ['chainHead_v1_call', { result: 'limitReached' }],
  ['chainHead_v1_storage', { result: 'limitReached' }],
  ['chainHead_v1_header', null],
  ['chainHead_v1_unpin', null],
  ['chainHead_v1_continue', null],
  ['chainHead_v1_stopOperation', null],
]);

const UNSUBSCRIBE = new Map([...SUBSCRIPTIONS.values()].map((kind) => [kind.unsubscribe, kind]));

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
  ...FOLLOW_CALLS.keys(),
  'archive_v1_body',
  'archive_v1_call',
  'archive_v1_finalizedHeight',
  'archive_v1_genesisHash',
  'archive_v1_hashByHeight',
  'archive_v1_header',
  'chainSpec_v1_chainName',
  'chainSpec_v1_genesisHash',
  'chainSpec_v1_properties',
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
  private readonly defaults = new Set([...SAFE_CALLS, ...SUBSCRIPTIONS.keys(), ...UNSUBSCRIBE.keys()]);

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

  /** The kind of subscription an unsubscribe method ends. */
  unsubscribing(method: string): SubscriptionKind | undefined {
    return UNSUBSCRIBE.get(method);
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
