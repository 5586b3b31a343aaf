// What the routes besides block answers read of a chain: headers, raw blocks,
// para-inclusions, and for useRcBlock a block's timestamp and this chain's own
// parachain id. Finalized facts are kept in the cache, keyed by hash.
import type { TieredCache } from '../../cache/tieredCache';
import { bytesOfHex } from '../../decode/hex';
import { IncompleteNodeAnswerError, UnknownBlockError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import type { BlockIds, BlockId } from '../shared/at/blockIds';
import { decodeEvents } from './bodyDecoding';
import type { FinalizedHead } from '../finalizedHead';
import { headerAnswer, rawBlockAnswer } from '../headers';
import { inclusionsOf, type ParaInclusion } from './paraInclusions';
import type { RuntimeRegistry } from '../runtimes';
import { PARACHAIN_ID_KEY, storageAt, SYSTEM_EVENTS_KEY, TIMESTAMP_NOW_KEY } from '../shared/storage/wellKnownKeys';

export interface ParaInclusionsAt {
  hash: Hex;
  parentHash: Hex;
  number: number;
  specName: string;
  inclusions: ParaInclusion[];
}

export class ChainReads {
  constructor(
    private readonly node: NodeClient,
    private readonly runtimes: RuntimeRegistry,
    private readonly finalized: FinalizedHead,
    private readonly cache: TieredCache,
    private readonly ids: BlockIds,
  ) {}

  /** A header as `/header` answers it: of a block, the finalized head, or the best block. */
  async header(id: BlockId | 'best' | 'finalized'): Promise<string> {
    if (id === 'best') {
      const best = await this.node.getHeader();
      if (!best) throw new IncompleteNodeAnswerError('The node returned no best header.');
      return headerAnswer(best);
    }
    const hash = id === 'finalized' ? await this.ids.headHash(true) : await this.ids.resolve(id);
    const key = `hd:${hash}`;
    const cached = await this.cache.get(key);
    if (cached) return cached;
    // A finalized head followed: its header came with it.
    const followed = this.finalized.headerOf(hash);
    if (followed) {
      const json = headerAnswer(followed);
      this.cache.set(key, json);
      return json;
    }
    const [header, finalizedNumber] = await wave([this.node.getHeader(hash), this.finalized.current()] as const);
    if (!header) throw new UnknownBlockError(hash);
    const json = headerAnswer(header);
    // A hash looked up from a height (or the finalized head) is the canonical one: kept once final.
    if (parseInt(header.number, 16) <= finalizedNumber && (id === 'finalized' || id.kind === 'number')) this.cache.set(key, json);
    return json;
  }

  /** A block's header and extrinsics as SCALE hex, as `/extrinsics-raw` answers them. */
  async raw(id: BlockId): Promise<string> {
    const hash = await this.ids.resolve(id);
    const rpcBlock = await this.node.getBlock(hash);
    if (!rpcBlock) throw new UnknownBlockError(hash);
    return rawBlockAnswer(rpcBlock.block);
  }

  /**
   * The parachain blocks a relay chain block included (its CandidateIncluded events),
   * ordered by parachain id; none on a chain without parachains. A finalized block's list is kept.
   */
  async paraInclusions(id: BlockId): Promise<ParaInclusionsAt> {
    const hash = await this.ids.resolve(id);
    const key = `pi:${hash}`;
    const cached = await this.cache.get(key);
    if (cached) return JSON.parse(cached) as ParaInclusionsAt;
    const [header, eventsHex, finalizedNumber] = await wave([
      this.node.getHeader(hash),
      storageAt(this.node, SYSTEM_EVENTS_KEY, hash),
      this.finalized.current(),
    ] as const);
    if (!header) throw new UnknownBlockError(hash);
    const number = parseInt(header.number, 16);
    const decodedAt = number === 0 ? hash : header.parentHash;
    const version = await this.node.getRuntimeVersion(decodedAt);
    const runtime = await this.runtimes.get(version, decodedAt);
    const inclusions = eventsHex ? inclusionsOf(decodeEvents(runtime, bytesOfHex(eventsHex))) : [];
    const found: ParaInclusionsAt = { hash, parentHash: header.parentHash, number, specName: version.specName, inclusions };
    // Keyed by hash, it cannot change; only a finalized block's is kept all the same, with its events read.
    if (number <= finalizedNumber && eventsHex !== undefined) this.cache.set(key, JSON.stringify(found));
    return found;
  }

  /** `Timestamp.Now` at a block, as sidecar prints it (decimal milliseconds); undefined without a timestamp pallet. */
  async timestampAt(hash: Hex): Promise<string | undefined> {
    // State at a block hash cannot change: kept once read.
    const key = `ts:${hash}`;
    const cached = await this.cache.get(key);
    if (cached !== undefined) return cached || undefined;
    const value = await this.node.getStorage(TIMESTAMP_NOW_KEY, hash);
    const timestamp = value && value.length === 18 ? Buffer.from(bytesOfHex(value)).readBigUInt64LE().toString() : undefined;
    this.cache.set(key, timestamp ?? '');
    return timestamp;
  }

  /** The id of this chain as a parachain (`ParachainInfo.ParachainId` at the finalized head); undefined on a relay chain. */
  async ownParaId(): Promise<number | undefined> {
    const value = await this.node.getStorage(PARACHAIN_ID_KEY, await this.node.getFinalizedHead());
    return value && value.length === 10 ? Buffer.from(bytesOfHex(value)).readUInt32LE() : undefined;
  }
}
