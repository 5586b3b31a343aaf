// Follows the node's finalized head by subscription, so that answering
// "is block n finalized?" costs no RPC call on the request path.
import type { NodeClient, RpcHeader } from '../rpc/nodeClient';

export class FinalizedHead {
  private number = -1;
  private advancedAt = 0;
  private subscribed = false;
  private readonly listeners: ((number: number) => void)[] = [];

  constructor(private readonly node: NodeClient) {}

  async start(): Promise<void> {
    if (!this.node.hasSubscriptions || this.subscribed) return;
    this.subscribed = true;
    await this.node.subscribe<RpcHeader>('chain_finalizedHead', 'chain_subscribeFinalizedHeads', 'chain_unsubscribeFinalizedHeads', [], (header) =>
      this.update(parseInt(header.number, 16)),
    );
  }

  private update(number: number) {
    if (number <= this.number) return;
    this.number = number;
    this.advancedAt = Date.now();
    for (const listener of this.listeners) listener(number);
  }

  /** Calls `listener` with each new finalized height. */
  onAdvance(listener: (number: number) => void): void {
    this.listeners.push(listener);
  }

  /** The finalized height; asks the node only when no subscription delivered one yet. */
  async current(): Promise<number> {
    if (this.number >= 0 && this.subscribed && this.node.isConnected) return this.number;
    const hash = await this.node.getFinalizedHead();
    const header = await this.node.getHeader(hash);
    if (header) this.update(parseInt(header.number, 16));
    return this.number;
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
    return this.number >= 0 && this.subscribed && this.node.isConnected;
  }
}
