// Block answers: from the cache when the block is finalized and was answered
// before, else built (blockBuilder.ts; identical requests in flight share one
// build) and kept if it can never change. With Redis, a final answer is built once
// across the replicas (cache/buildLeases.ts): one known final before its build (a
// finalized height, the finalized head) may lead its build; any other only joins one
// another replica leads. Ids resolve through blockIds.ts, each cache key looked up
// once per request.
import type { BuildLeases, SharedForm } from '../../cache/buildLeases';
import type { SingleFlight } from '../../cache/singleFlight';
import type { TieredCache } from '../../cache/tieredCache';
import { BeyondHeadError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { builtKey } from './answerVariant';
import { extrinsicJson, filterXcm, fromCached, toCached, type BlockAnswer, type BlockQuery } from './blockAnswer';
import { BlockBuilder } from './blockBuilder';
import { type BlockIds, isPastAnyHead, type BlockId } from '../shared/at/blockIds';
import type { FeeDetailsKnowledge } from '../feeRules';
import type { FinalizedHead } from '../finalizedHead';
import type { RuntimeRegistry } from '../runtimes';

/** Blocks of one range built at once: enough to keep the node busy, few enough to bound memory and calls. */
export const RANGE_WINDOW = 8;

/** What the block services of every request share. */
export interface SharedBuildState {
  builds: SingleFlight<BlockAnswer>;
  feeDetails: FeeDetailsKnowledge;
  /** With Redis: final answers built by one replica of the fleet, awaited by the others. */
  leases?: BuildLeases;
}

export class BlocksService {
  private readonly builds: SingleFlight<BlockAnswer>;
  private readonly builder: BlockBuilder;
  private readonly leases?: BuildLeases;

  /** `shared`: what the services of every request share (made once in services/chain.ts). */
  constructor(
    private readonly node: NodeClient,
    private readonly runtimes: RuntimeRegistry,
    private readonly finalized: FinalizedHead,
    private readonly cache: TieredCache,
    genesisHash: Hex,
    readonly ids: BlockIds,
    shared: SharedBuildState,
  ) {
    this.builds = shared.builds;
    this.leases = shared.leases;
    this.builder = new BlockBuilder(node, runtimes, finalized, ids, genesisHash, shared.feeDetails);
  }

  /**
   * The block at `id`. For a hash id the block must also be canonical to be
   * called finalized, as sidecar checks; a number id is canonical by definition.
   */
  async block(id: BlockId, query: BlockQuery): Promise<BlockAnswer> {
    if (id.kind === 'hash') return this.blockAt(id.hash, query, true);
    const { number } = id;
    if (isPastAnyHead(number)) return this.ids.beyondHead();
    // A finalized height's hash and answer are cached: a warm request needs nothing else.
    const knownHash = await this.ids.cachedHash(number);
    if (knownHash) {
      const cached = await this.cache.get(answerKey(knownHash, query));
      if (cached) return cachedAnswer(knownHash, cached, query);
    }
    // A height at or below the finalized head has one block forever: its answer is final before it is built.
    const final = this.finalized.known && number <= this.finalized.height;
    // A newly finalized height's hash is not known anywhere yet: with Redis, one replica looks it
    // up and builds, and the others read both from Redis without a node call.
    if (!knownHash && final && this.leases) {
      const resolve = () => this.resolveAndBuild(number, query, undefined, final);
      return this.leases.once(`hb:${number}:${builtKey(query)}`, resolve, this.heightForm(query), { counted: false });
    }
    return this.resolveAndBuild(number, query, knownHash, final);
  }

  private async resolveAndBuild(number: number, query: BlockQuery, knownHash: Hex | undefined, final: boolean): Promise<BlockAnswer> {
    // To build: the parent's hash in the same wave, since a block is decoded with the runtime at its parent.
    const [hash, parentHash] = await wave([
      knownHash ?? this.ids.fetchHash(number),
      number > 0 ? this.ids.hashOf(number - 1).catch(() => undefined) : undefined,
    ] as const);
    // With the hash known, its answer was looked up above already.
    return knownHash ? this.buildAndKeep(hash, query, false, parentHash, final) : this.blockAt(hash, query, false, parentHash, final);
  }

  /** A height's build as the fleet shares it: its hash, whose answer the build has kept under its own key. */
  private heightForm(query: BlockQuery): SharedForm<BlockAnswer> {
    return {
      shared: (answer) => (answer.immutable ? answer.hash : undefined),
      read: async (hash) => {
        if (!/^0x[0-9a-f]{64}$/.test(hash)) return undefined;
        const cached = await this.cache.get(answerKey(hash as Hex, query));
        return cached === undefined ? undefined : cachedAnswer(hash as Hex, cached, query);
      },
    };
  }

  /**
   * `parentHash`, when the caller knows it, lets the parent's runtime version come in the first wave;
   * `final`: the block is known to be finalized and canonical, so this replica may lead its build for the fleet
   * (else it only joins a build another replica leads).
   */
  async blockAt(hash: Hex, query: BlockQuery, checkCanonical: boolean, parentHash?: Hex, final = false): Promise<BlockAnswer> {
    const cached = await this.cache.get(answerKey(hash, query));
    if (cached) return cachedAnswer(hash, cached, query);
    return this.buildAndKeep(hash, query, checkCanonical, parentHash, final);
  }

  /** The head block: the finalized head (final, as the node says so), or the best block. */
  async head(finalizedOnly: boolean, query: BlockQuery): Promise<BlockAnswer> {
    return this.blockAt(await this.ids.headHash(finalizedOnly), query, false, undefined, finalizedOnly);
  }

  /** Builds an answer not in the cache (identical concurrent requests share one build) and keeps it if final. */
  private async buildAndKeep(hash: Hex, query: BlockQuery, checkCanonical: boolean, parentHash: Hex | undefined, final: boolean): Promise<BlockAnswer> {
    const key = answerKey(hash, query);
    const build = () => this.builder.build(hash, query, { checkCanonical, parentHash }).then((answer) => this.keepHashes(answer));
    const { promise } = this.builds.run(`${key}:${Number(checkCanonical)}`, () =>
      this.leases ? this.leases.once(key, build, sharedForm(hash, query), { final }) : build().then((answer) => this.keep(key, answer)),
    );
    return filterXcm(await promise, query.paraId);
  }

  /**
   * A final block's extrinsic hashes, kept as the extrinsic index reads them: written
   * before the answer is (one connection, in order), so a replica told the answer is kept
   * finds them too, and no replica reads the block again to index it.
   */
  private keepHashes({ extrinsicHashes, ...answer }: BlockAnswer): BlockAnswer {
    if (answer.immutable && extrinsicHashes) this.cache.set(extrinsicHashesKey(answer.number), extrinsicHashes.map((hash) => hash.slice(2)).join(''));
    // Not carried further: answers are kept in memory, the hashes are kept here.
    return answer;
  }

  private keep(key: string, answer: BlockAnswer): BlockAnswer {
    if (answer.immutable && this.cache.canKeep(answer.json.length)) this.cache.set(key, toCached(answer));
    return answer;
  }

  /**
   * The blocks of a range, in order. One call first checks the range against the
   * head, so a range past it costs nothing more; then at most RANGE_WINDOW blocks
   * are built at once, and none is started after `signal` aborts (the client left).
   */
  async *range(numbers: number[], query: BlockQuery, signal: AbortSignal): AsyncGenerator<BlockAnswer> {
    const head = await this.ids.bestNumber();
    if (numbers[numbers.length - 1] > head) throw new BeyondHeadError(head);
    const building: Promise<BlockAnswer>[] = [];
    let next = 0;
    const startNext = () => {
      const answer = this.block({ kind: 'number', number: numbers[next++] }, query);
      answer.catch(() => undefined); // awaited in order below; a failure after the client left is nobody's
      building.push(answer);
    };
    while (next < numbers.length && building.length < RANGE_WINDOW) startNext();
    while (building.length > 0) {
      const answer = await building.shift()!;
      if (signal.aborted) return;
      if (next < numbers.length) startNext();
      yield answer;
    }
  }

  /**
   * One extrinsic of the block at `id`, as `/extrinsics/{index}` answers it, cut from the
   * block's answer without parsing the rest; undefined when the block has no such extrinsic.
   */
  async extrinsic(id: BlockId, index: number, query: BlockQuery): Promise<{ json: string; fromCache: boolean } | undefined> {
    const answer = await this.block(id, query);
    const extrinsic = extrinsicJson(answer, index);
    return extrinsic === undefined ? undefined : { json: extrinsic, fromCache: answer.fromCache };
  }

  /**
   * Loads the runtime of the finalized head ahead of the first request, so that
   * request does not pay for the metadata. Failures only mean a cold first request.
   */
  async warmUp(): Promise<void> {
    const hash = await this.node.getFinalizedHead();
    await this.runtimes.get(await this.node.getRuntimeVersion(hash), hash);
  }
}

function cachedAnswer(hash: Hex, cached: string, query: BlockQuery): BlockAnswer {
  return filterXcm(fromCached(hash, cached, query.decodedXcmMsgs), query.paraId);
}

/** An answer as the fleet shares it: only one that can never change. */
function sharedForm(hash: Hex, query: BlockQuery): SharedForm<BlockAnswer> {
  return {
    shared: (answer) => (answer.immutable ? toCached(answer) : undefined),
    read: (text) => fromCached(hash, text, query.decodedXcmMsgs),
  };
}

/** Where a finalized height's extrinsic hashes are kept: 64 hex digits each, in index order. */
export function extrinsicHashesKey(height: number): string {
  return `xh:${height}`;
}

function answerKey(hash: Hex, query: BlockQuery): string {
  return `b:${hash}:${builtKey(query)}`;
}
