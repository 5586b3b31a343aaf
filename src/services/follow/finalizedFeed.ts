// The finalized chain as the followers see it (block streams, the extrinsic index):
// the newest finalized height, and a call each time it moves. A move may jump
// several heights at once (a subscription can skip notifications, a poll sees
// only where the head is now), so followers keep their own position and walk
// every height from there to the head: nothing here is per height.
import type { FinalizedHead } from '../finalizedHead';

export class FinalizedFeed {
  private readonly listeners: ((head: number) => void)[] = [];

  constructor(private readonly finalized: Pick<FinalizedHead, 'onAdvance' | 'current' | 'height'>) {
    finalized.onAdvance((head) => {
      for (const listener of this.listeners) listener(head);
    });
  }

  /** The newest finalized height known without asking (-1 before the first). */
  get head(): number {
    return this.finalized.height;
  }

  /** The newest finalized height, asking the node only when none is known yet. */
  async currentHead(): Promise<number> {
    return this.finalized.height >= 0 ? this.finalized.height : this.finalized.current();
  }

  /** Calls `listener` with the new head each time it moves (by one height or more). */
  onAdvance(listener: (head: number) => void): void {
    this.listeners.push(listener);
  }
}
