// A finalized height's answer built once, however many want it at the same time:
// the prebuilder, every stream's option set and every client catching up ask here.
// Concurrent asks share one build; the newest answers are also kept briefly in
// memory, so two option sets that differ only in how the answer is sent (the
// `finalized` field, EVM addresses, an XCM filter) never build twice, even with
// the cache off. Behind this, BlocksService's cache (and Redis) is the lasting copy.
import { LRUCache } from 'lru-cache';

import { SingleFlight } from '../../cache/singleFlight';
import { builtKey } from '../blocks/answerVariant';
import { filterXcm, type BlockAnswer, type BlockQuery } from '../blocks/blockAnswer';
import type { BlockId } from '../shared/at/blockIds';
import type { BlocksService } from '../blocks/blocksService';
import type { ChainReads } from '../blocks/chainReads';

/** Bytes of recent answers kept for option sets that ask a moment later. */
const RECENT_BYTES = 16 * 1024 * 1024;

export class FinalizedBuilds {
  private readonly building = new SingleFlight<BlockAnswer>();
  private readonly recent = new LRUCache<string, BlockAnswer>({
    maxSize: RECENT_BYTES,
    sizeCalculation: (answer, key) => answer.json.length + (answer.xcm?.length ?? 0) + key.length,
  });
  private readonly headerBuilding = new SingleFlight<string>();
  private readonly recentHeaders = new LRUCache<number, string>({ max: 256 });

  constructor(
    private readonly blocks: Pick<BlocksService, 'block'>,
    private readonly reads: Pick<ChainReads, 'header'>,
  ) {}

  /** As BlocksService#block; a height's build is shared (an XCM filter is applied per caller). */
  block(id: BlockId, query: BlockQuery): Promise<BlockAnswer> {
    if (id.kind !== 'number') return this.blocks.block(id, query);
    const key = `${id.number}:${builtKey(query)}`;
    const kept = this.recent.get(key);
    if (kept) return Promise.resolve(filterXcm(kept, query.paraId));
    const { promise } = this.building.run(key, async () => {
      const answer = await this.blocks.block(id, { ...query, paraId: undefined });
      // Only what can never change is kept (a finalized block whose events were read).
      if (answer.immutable) this.recent.set(key, answer);
      return answer;
    });
    return promise.then((answer) => filterXcm(answer, query.paraId));
  }

  /** The `/blocks/{n}/header` answer of a finalized height, shared the same way. */
  header(number: number): Promise<string> {
    const kept = this.recentHeaders.get(number);
    if (kept !== undefined) return Promise.resolve(kept);
    return this.headerBuilding.run(String(number), async () => {
      const header = await this.reads.header({ kind: 'number', number });
      this.recentHeaders.set(number, header);
      return header;
    }).promise;
  }
}
