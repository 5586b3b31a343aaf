// Builds the answers of newly finalized blocks before anyone asks. Exchanges and
// indexers poll for the newest block the moment it is finalized; with this, that
// first request is a cache hit instead of a build.
import type { Logger } from '../../logger';
import type { BlockQuery } from '../blocks/blockAnswer';
import type { BlocksService } from '../blocks/blocksService';

/** What a client asks for when it passes no options. */
export const DEFAULT_QUERY: BlockQuery = { eventDocs: false, extrinsicDocs: false, noFees: false, decodedXcmMsgs: false };

export class Prebuilder {
  private wanted = -1;
  private built = -1;
  private running = false;

  /** @param depth at most this many of the newest finalized blocks are built per advance */
  constructor(
    private readonly blocks: Pick<BlocksService, 'block'>,
    private readonly logger: Logger,
    private readonly depth: number,
  ) {}

  onFinalized(number: number): void {
    // The first height seen is where we start: the history before it is built on demand.
    if (this.built < 0) this.built = number - 1;
    this.wanted = Math.max(this.wanted, number);
    if (!this.running) void this.run();
  }

  /** One block at a time, so that building ahead never competes much with requests. */
  private async run(): Promise<void> {
    this.running = true;
    while (this.built < this.wanted) {
      const target = this.wanted;
      for (let number = Math.max(this.built + 1, target - this.depth + 1); number <= target; number++) {
        try {
          await this.blocks.block({ kind: 'number', number }, DEFAULT_QUERY);
        } catch (error) {
          // The request path will build (and report) it if anyone asks.
          this.logger.debug({ err: error, number }, 'prebuilding a finalized block failed');
        }
      }
      this.built = target;
    }
    this.running = false;
  }
}
