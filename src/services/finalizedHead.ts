// Follows the node's finalized head, so that answering "is block n finalized?"
// costs no RPC call on the request path: by subscription over a WebSocket, by
// one shared poll over HTTP (which has no subscriptions).
import type { Hex, NodeClient, RpcHeader } from '../rpc/nodeClient';
import { hashOfHeader } from './headers';

/** A poll this many intervals old no longer counts: the node is asked again. */
const STALE_POLLS = 3;
/** Finalized heights whose hash (and header, when heard) are kept from the heads followed. */
const RECENT = 64;

export class FinalizedHead {
  private number = -1;
  private advancedAt = 0;
  private subscribed = false;
  /** The connection the last notification came on: after a reconnect, only a renewed subscription's own counts. */
  private notifiedOn = -1;
  private pollTimer?: NodeJS.Timeout;
  private polledAt = 0;
  private polling = false;
  private readonly listeners: ((number: number) => void)[] = [];
  /**
   * The hashes of recent finalized heights, each head's and its parent's, and the heads'
   * headers by hash: a new height's hash and header are known to every replica from the
   * head it follows, with no call of its own (a height a jump skipped is asked as before).
   */
  private readonly hashes = new Map<number, Hex>();
  private readonly headers = new Map<Hex, RpcHeader>();

  /** `pollMs`: how often a node without subscriptions (HTTP) is asked, at the scale of its block time. */
  constructor(
    private readonly node: NodeClient,
    private readonly pollMs = 3000,
  ) {}

  async start(): Promise<void> {
    if (this.subscribed || this.pollTimer) return;
    if (!this.node.hasSubscriptions) {
      // Outside any request: the poll's calls are counted against none.
      this.pollTimer = setInterval(() => this.poll(), this.pollMs).unref();
      await this.ask().catch(() => undefined);
      return;
    }
    this.subscribed = true;
    await this.node.subscribe<RpcHeader>('chain_finalizedHead', 'chain_subscribeFinalizedHeads', 'chain_unsubscribeFinalizedHeads', [], (header) => {
      this.notifiedOn = this.node.connection;
      this.update(parseInt(header.number, 16), header);
    });
  }

  /** Ends the poll (a subscription ends with its connection). */
  stop(): void {
    clearInterval(this.pollTimer);
  }

  private update(number: number, header: RpcHeader) {
    this.remember(number, header);
    if (number <= this.number) return;
    this.number = number;
    this.advancedAt = Date.now();
    for (const listener of this.listeners) listener(number);
  }

  /** Calls `listener` with each new finalized height. */
  onAdvance(listener: (number: number) => void): void {
    this.listeners.push(listener);
  }

  /** The finalized height; asks the node only when neither subscription nor poll has a current one. */
  async current(): Promise<number> {
    if (this.known) return this.number;
    return this.ask();
  }

  /** One poll at a time: a slow node does not pile them up. */
  private poll() {
    if (this.polling) return;
    this.polling = true;
    this.ask()
      .catch(() => undefined)
      .finally(() => (this.polling = false));
  }

  private async ask(): Promise<number> {
    const hash = await this.node.getFinalizedHead();
    const header = await this.node.getHeader(hash);
    if (header) {
      this.update(parseInt(header.number, 16), header);
      this.polledAt = Date.now();
    }
    return this.number;
  }

  private remember(number: number, header: RpcHeader): void {
    const hash = hashOfHeader(header);
    this.hashes.set(number, hash);
    if (number > 0) this.hashes.set(number - 1, header.parentHash as Hex);
    this.headers.set(hash, header);
    // Insertion order is height order here (heads only move up), so the first are the oldest.
    for (const height of this.hashes.keys()) {
      if (this.hashes.size <= RECENT) break;
      this.hashes.delete(height);
    }
    for (const old of this.headers.keys()) {
      if (this.headers.size <= RECENT) break;
      this.headers.delete(old);
    }
  }

  /** The hash of a recent finalized height, from the heads followed (a finalized height's hash never changes). */
  hashAt(number: number): Hex | undefined {
    return this.hashes.get(number);
  }

  /** The header of a recent finalized head, by its hash. */
  headerOf(hash: Hex): RpcHeader | undefined {
    return this.headers.get(hash);
  }

  /** The finalized head's hash, when the height is known without a call. */
  get headHash(): Hex | undefined {
    return this.known ? this.hashes.get(this.number) : undefined;
  }

  secondsSinceAdvance(): number | null {
    return this.advancedAt ? Math.round((Date.now() - this.advancedAt) / 1000) : null;
  }

  /** The last height reported, without asking (-1 before the first). */
  get height(): number {
    return this.number;
  }

  /** Whether a value is already known without a call. */
  get known(): boolean {
    if (this.number < 0) return false;
    // A subscription renewed after a reconnect sends the head at once; until it has (or if the node
    // refused to renew it), the height heard before is not trusted and the node is asked.
    if (this.subscribed) return this.node.isConnected && this.notifiedOn === this.node.connection;
    return this.pollTimer !== undefined && Date.now() - this.polledAt < this.pollMs * STALE_POLLS;
  }
}
