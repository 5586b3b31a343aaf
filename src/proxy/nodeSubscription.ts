// A subscription that is state at one node for one connection to it (a
// chainHead follow, a watched transaction, an archive storage query): the node
// knows it by its own id on that connection only, so the calls that name it go
// over that connection and nowhere else, and it ends when the connection does.
import type { Slots } from '../slots';

/** What the opener of such a subscription is told besides its notifications. */
export interface NodeSubscriptionEvents {
  /** The connection holding it closed: the node has forgotten it. */
  lost(): void;
  /** A chainHead follow: counted against the node's few follows per connection. */
  follow?: boolean;
}

/** Where a subscription lives: the node, which could tell its place in a log line. */
export interface SubscriptionHolder {
  readonly url: string;
}

export type BoundCall = (method: string, params: unknown[], signal?: AbortSignal, caller?: Slots) => Promise<unknown>;

export class NodeSubscription {
  constructor(
    readonly holder: SubscriptionHolder,
    /** The node's id for it, which the calls naming it must carry. */
    readonly serverId: string | number,
    /** A call over the connection that holds it. */
    readonly call: BoundCall,
    /** Ends it at the node (nothing is sent if its connection is gone). */
    readonly end: () => Promise<void>,
  ) {}
}
