// Fetches and computes `/blocks` answers. Every request's RPC calls are
// planned as waves: what does not depend on an earlier answer goes out
// together, and what is already known (finalized heights, runtimes, cached
// responses) costs no call at all.
import { TypeRegistry } from '@polkadot/types';
import type { AccountId, Block, EventRecord, Header } from '@polkadot/types/interfaces';

import { SingleFlight } from '../cache/singleFlight';
import type { TieredCache } from '../cache/tieredCache';
import { toSidecarJson } from '../decode/codecJson';
import { authorId, readHeader, readValidators, type HeaderFields } from '../decode/header';
import { bytesOfHex } from '../decode/hex';
import { ApiError, badRequest, notFound } from '../errors';
import { NodeRpcError, type Hex, type NodeClient, type RpcHeader } from '../rpc/nodeClient';
import { currentStats, wave } from '../rpc/requestStats';
import { assembleBlock, headerFieldsOf, logsToJson, type SidecarBlock, type SidecarExtrinsic } from './blockShape';
import { decodeBody, decodeEvents } from './bodyDecoding';
import { inclusionsOf, type ParaInclusion } from './paraInclusions';
import { FeeDetailsKnowledge } from './feeRules';
import { resolveFees } from './fees';
import type { FinalizedHead } from './finalizedHead';
import type { Runtime, RuntimeRegistry } from './runtimes';
import { xcmMessages } from './xcm';
import { filterXcm, fromCached, queryKey, toCached, type BlockAnswer, type BlockId, type BlockQuery } from './blockAnswer';

const headerRegistry = new TypeRegistry();
/** Blocks of one range built at once: enough to keep the node busy, few enough to bound memory and calls. */
export const RANGE_WINDOW = 8;

export class BlocksService {
  private readonly builds = new SingleFlight<BlockAnswer>();
  private readonly feeDetails = new FeeDetailsKnowledge();

  constructor(
    private readonly node: NodeClient,
    private readonly runtimes: RuntimeRegistry,
    private readonly finalized: FinalizedHead,
    private readonly cache: TieredCache,
    private readonly genesisHash: Hex,
  ) {}

  /** number -> hash, from the cache when the height is finalized (its hash can no longer change). */
  async hashOf(number: number): Promise<Hex> {
    const key = `h:${number}`;
    const cached = await this.cache.get(key);
    if (cached) return cached as Hex;
    const [hash, finalizedNumber] = await wave([this.node.getBlockHash(number), this.finalized.current()] as const);
    if (!hash) throw await this.beyondHead();
    if (number <= finalizedNumber) this.cache.set(key, hash);
    return hash;
  }

  /** The 400 for a height past the head, naming the head. */
  async beyondHead(): Promise<ApiError> {
    return beyondHeadError(await this.bestNumber());
  }

  private async bestNumber(): Promise<number> {
    const header = await this.node.getHeader();
    return header ? parseInt(header.number, 16) : 0;
  }

  /**
   * The blocks of a range, in order. One call first checks the range against the
   * head, so a range past it costs nothing more; then at most RANGE_WINDOW blocks
   * are built at once, and none is started after `signal` aborts (the client left).
   */
  async *range(numbers: number[], query: BlockQuery, signal: AbortSignal): AsyncGenerator<BlockAnswer> {
    const last = numbers[numbers.length - 1];
    const head = await this.bestNumber();
    if (last > head) throw beyondHeadError(head);
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

  async resolve(id: BlockId): Promise<Hex> {
    return id.kind === 'hash' ? id.hash : this.hashOf(id.number);
  }

  /**
   * The block at `id`. For a hash id the block must also be canonical to be
   * called finalized, as sidecar checks; a number id is canonical by definition.
   */
  async block(id: BlockId, query: BlockQuery): Promise<BlockAnswer> {
    if (id.kind === 'hash') return this.blockAt(id.hash, query, true);
    // A finalized height's hash and answer are cached: a warm request needs nothing else.
    const knownHash = (await this.cache.get(`h:${id.number}`)) as Hex | undefined;
    const cached = knownHash && (await this.cache.get(answerKey(knownHash, query)));
    if (knownHash && cached) return this.cachedAnswer(knownHash, cached, query);
    // To build: the parent's hash in the same wave, since a block is decoded with the runtime at its parent.
    const [hash, parentHash] = await wave([
      knownHash ? Promise.resolve(knownHash) : this.hashOf(id.number),
      id.number > 0 ? this.hashOf(id.number - 1).catch(() => undefined) : Promise.resolve(undefined),
    ] as const);
    // With the hash known, its answer was looked up above already.
    return knownHash ? this.buildAndKeep(hash, query, false, parentHash) : this.blockAt(hash, query, false, parentHash);
  }

  /** `parentHash`, when the caller knows it, lets the parent's runtime version come in the first wave. */
  async blockAt(hash: Hex, query: BlockQuery, checkCanonical: boolean, parentHash?: Hex): Promise<BlockAnswer> {
    const cached = await this.cache.get(answerKey(hash, query));
    if (cached) return this.cachedAnswer(hash, cached, query);
    return this.buildAndKeep(hash, query, checkCanonical, parentHash);
  }

  /** Builds an answer not in the cache (identical concurrent requests share one build) and keeps it if final. */
  private async buildAndKeep(hash: Hex, query: BlockQuery, checkCanonical: boolean, parentHash?: Hex): Promise<BlockAnswer> {
    const stats = currentStats();
    if (stats) stats.cache = 'miss';
    const key = answerKey(hash, query);
    const { promise } = this.builds.run(`${key}:${Number(checkCanonical)}`, () => this.build(hash, query, checkCanonical, parentHash));
    const answer = await promise;
    if (answer.immutable) this.cache.set(key, toCached(answer));
    return filterXcm(answer, query.paraId);
  }

  private cachedAnswer(hash: Hex, cached: string, query: BlockQuery): BlockAnswer {
    const stats = currentStats();
    if (stats) stats.cache = 'hit';
    return filterXcm(fromCached(hash, cached, query.decodedXcmMsgs), query.paraId);
  }

  private async build(hash: Hex, query: BlockQuery, checkCanonical: boolean, parentHint?: Hex): Promise<BlockAnswer> {
    const { node } = this;
    // Wave 1: everything that needs only the hash (and the parent's hash, when known), the
    // small answers asked first. The events, the biggest answer, come last: the block's
    // extrinsics are read while they are on their way. Each is awaited when needed, and
    // none is left unhandled should an earlier one fail.
    const hintedVersionCall = handledLater(parentHint ? node.getRuntimeVersion(parentHint) : Promise.resolve(undefined));
    const finalizedCall = handledLater(this.finalized.current());
    // The node refusing (no such state) means no validators; a node away or throttling fails the request (nothing cached).
    const validatorsCall = handledLater(node.getStorage(SESSION_VALIDATORS_KEY, hash).catch(nullIfRpcError));
    const blockCall = handledLater(node.getBlock(hash));
    // As bytes at once: the hex (twice their size) is not kept while the block is read.
    const eventsBytesCall = handledLater(this.eventsAt(hash).then((eventsHex) => (eventsHex === undefined ? null : eventsHex ? bytesOfHex(eventsHex) : new Uint8Array())));
    const [rpcBlock, hintedVersion, finalizedNumber] = await wave([blockCall, hintedVersionCall, finalizedCall] as const);
    if (!rpcBlock) throw unknownBlock(hash);
    const number = parseInt(rpcBlock.block.header.number, 16);
    // A block was executed, and its events encoded, by the runtime of its parent's state: the
    // block that enacts an upgrade already reports the new one in its own. Genesis has only its own.
    const parentHash = rpcBlock.block.header.parentHash;
    const decodedAt = number === 0 ? hash : parentHash;

    // Wave 2 (a hash id, or a parent that moved under us): the runtime version there and,
    // for a hash id, whether the block is on the canonical chain.
    const canonicalCheck =
      checkCanonical && number <= finalizedNumber ? this.hashOf(number).then((canonical) => canonical === hash) : Promise.resolve(true);
    const [version, canonical] = await wave([
      hintedVersion && parentHint === decodedAt ? Promise.resolve(hintedVersion) : node.getRuntimeVersion(decodedAt),
      canonicalCheck,
    ] as const);
    const runtime = await this.runtimes.get(version, decodedAt);
    const { registry } = runtime;

    // The polkadot.js reading, made only if needed (the compiled one declines the block, or XCM is asked for).
    let reference: Block | undefined;
    const referenceBlock = () => (reference ??= registry.createType('Block', rpcBlock.block) as Block);
    const decoding = handledLater(
      decodeBody(runtime, rpcBlock.block.extrinsics, eventsBytesCall, (eventsBytes) => ({
        block: referenceBlock(),
        events: eventsBytes && (registry.createType('Vec<EventRecord>', eventsBytes) as unknown as EventRecord[]),
      })),
    );
    // The header read without polkadot.js where it can be; polkadot.js reads the rest.
    const headerFields = this.readHeaderFields(rpcBlock.block.header, await validatorsCall, hash, number, runtime);
    if (!headerFields) throw unknownBlock(hash);
    const [decoded, eventsBytes] = await wave([decoding, eventsBytesCall] as const);
    const { body, facts } = assembleBlock(hash, headerFields, decoded, query);
    const isGenesis = number === 0;

    // Last wave, only for fees no event reported: the runtime's answers at the parent.
    if (!isGenesis) {
      await resolveFees(body.extrinsics, facts, {
        node,
        registry,
        parentHash,
        specName: version.specName,
        specVersion: version.specVersion,
        hasTransactionPaymentApi: runtime.hasTransactionPaymentApi,
        feeDetails: this.feeDetails,
        noFees: query.noFees,
      });
    }

    const finalized = canonical && number <= finalizedNumber;
    return {
      hash,
      number,
      json: JSON.stringify(body),
      xcm: query.decodedXcmMsgs ? JSON.stringify(xcmMessages(registry, version.specName, referenceBlock())) : undefined,
      finalized,
      immutable: finalized && eventsBytes !== null,
      fromCache: false,
    };
  }

  /** `System.Events` at a block: null when there are none, undefined when the node no longer has that state (pruned). */
  private eventsAt(hash: Hex): Promise<Hex | null | undefined> {
    return this.node.getStorage(SYSTEM_EVENTS_KEY, hash).catch((error: unknown) => {
      if (error instanceof NodeRpcError) return undefined; // reported, never cached
      throw error;
    });
  }

  /**
   * The header's fields, or undefined when the header is not the block asked for: a
   * node (or a proxy, or chopsticks for hashes it does not know) can hand back some
   * other block, and an answer is only ever about the block that was asked for. The
   * genesis hash is taken as the node reported it at start (chopsticks reports a
   * made-up one for a chain it built from a genesis spec).
   */
  private readHeaderFields(rpcHeader: RpcHeader, validatorsHex: Hex | null, hash: Hex, number: number, runtime: Runtime): HeaderFields | undefined {
    const isAskedFor = (headerHash: string) => (number === 0 ? hash === this.genesisHash : headerHash === hash);
    const reading = readHeader(rpcHeader);
    // A reading whose hash differs may be a chain with a header of its own: polkadot.js decides.
    if (reading && isAskedFor(reading.hash)) {
      const validators = validatorsHex ? readValidators(bytesOfHex(validatorsHex)) : Buffer.alloc(0);
      // Accounts that are not 32 bytes, or an author polkadot.js reads otherwise: polkadot.js decides.
      const author = validators ? authorId(reading, validators, runtime.registry.chainSS58 ?? 42) : 'decline';
      if (author !== 'decline') return { ...reading.fields, authorId: author };
    }
    const { registry } = runtime;
    const header = registry.createType('Header', rpcHeader) as Header;
    if (!isAskedFor(header.hash.toHex())) return undefined;
    const validators = validatorsHex ? (registry.createType('Vec<AccountId>', bytesOfHex(validatorsHex)) as unknown as AccountId[]) : [];
    return headerFieldsOf(header, validators);
  }

  /**
   * Loads the runtime of the finalized head ahead of the first request, so that
   * request does not pay for the metadata. Failures only mean a cold first request.
   */
  async warmUp(): Promise<void> {
    const hash = await this.node.getFinalizedHead();
    await this.runtimes.get(await this.node.getRuntimeVersion(hash), hash);
  }

  /** The block the head endpoints mean: the finalized head, or the best block. */
  async headHash(finalized: boolean): Promise<Hex> {
    if (finalized) return this.node.getFinalizedHead();
    const header = await this.node.getHeader();
    if (!header) throw new ApiError(503, 'The node returned no best header.');
    return headerHash(header);
  }

  async header(id: BlockId | 'best' | 'finalized'): Promise<string> {
    let header: RpcHeader | null;
    if (id === 'best') header = await this.node.getHeader();
    else {
      const hash = id === 'finalized' ? await this.node.getFinalizedHead() : await this.resolve(id);
      const key = `hd:${hash}`;
      const cached = await this.cache.get(key);
      if (cached) return cached;
      const [fetched, finalizedNumber] = await wave([this.node.getHeader(hash), this.finalized.current()] as const);
      if (!fetched) throw unknownBlock(hash);
      const json = JSON.stringify(toSidecarJson(headerRegistry.createType('Header', fetched)));
      if (parseInt(fetched.number, 16) <= finalizedNumber && (id === 'finalized' || id.kind === 'number')) this.cache.set(key, json);
      return json;
    }
    if (!header) throw new ApiError(503, 'The node returned no best header.');
    return JSON.stringify(toSidecarJson(headerRegistry.createType('Header', header)));
  }

  /**
   * The parachain blocks a relay chain block included (its CandidateIncluded events),
   * ordered by parachain id; none on a chain without parachains. A finalized block's list is kept.
   */
  async paraInclusions(id: BlockId): Promise<ParaInclusionsAt> {
    const hash = await this.resolve(id);
    const key = `pi:${hash}`;
    const cached = await this.cache.get(key);
    if (cached) return JSON.parse(cached) as ParaInclusionsAt;
    const [header, eventsHex, finalizedNumber] = await wave([this.node.getHeader(hash), this.eventsAt(hash), this.finalized.current()] as const);
    if (!header) throw unknownBlock(hash);
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

  async extrinsic(id: BlockId, index: number, query: BlockQuery): Promise<string> {
    const answer = await this.block(id, query);
    const body = JSON.parse(answer.json) as SidecarBlock;
    const extrinsic: SidecarExtrinsic | undefined = body.extrinsics[index];
    if (!extrinsic) throw badRequest('Requested `extrinsicIndex` does not exist');
    return JSON.stringify({ at: { height: body.number, hash: body.hash }, extrinsics: extrinsic });
  }

  async raw(id: BlockId): Promise<string> {
    const hash = await this.resolve(id);
    const rpcBlock = await this.node.getBlock(hash);
    if (!rpcBlock) throw unknownBlock(hash);
    const header = headerRegistry.createType('Header', rpcBlock.block.header) as Header;
    return JSON.stringify({
      parentHash: header.parentHash.toHex(),
      number: header.number.unwrap().toHex(),
      stateRoot: header.stateRoot.toHex(),
      extrinsicRoot: header.extrinsicsRoot.toHex(),
      digest: { logs: logsToJson(header) },
      extrinsics: rpcBlock.block.extrinsics,
    });
  }
}

function nullIfRpcError(error: unknown): null {
  if (error instanceof NodeRpcError) return null;
  throw error;
}

/** `promise`, marked as handled now: it is awaited later, and may fail before that. */
function handledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

export interface ParaInclusionsAt {
  hash: Hex;
  parentHash: Hex;
  number: number;
  specName: string;
  inclusions: ParaInclusion[];
}

/** A header's hash, read directly (the same header layout polkadot.js's default registry assumes); polkadot.js where that reading declines it. */
export function headerHash(header: RpcHeader): Hex {
  return (readHeader(header)?.hash as Hex | undefined) ?? headerRegistry.createType('Header', header).hash.toHex();
}

function answerKey(hash: Hex, query: BlockQuery): string {
  return `b:${hash}:${queryKey(query)}`;
}

function beyondHeadError(head: number): ApiError {
  return badRequest(`Specified block number is larger than the current largest block. The largest known block number is ${head}.`);
}

function unknownBlock(hash: Hex): ApiError {
  return notFound(`No block with hash ${hash} is known to the node.`);
}

// twox128("System") ++ twox128("Events") and twox128("Session") ++ twox128("Validators"):
// fixed by the pallets' names, the same on every runtime that has them.
const SYSTEM_EVENTS_KEY: Hex = '0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7';
// twox128("Timestamp") ++ twox128("Now") and twox128("ParachainInfo") ++ twox128("ParachainId").
const TIMESTAMP_NOW_KEY: Hex = '0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb';
const PARACHAIN_ID_KEY: Hex = '0x0d715f2646c8f85767b5d2764bb2782604a74d81251e398fd8a0a4d55023bb3f';
const SESSION_VALIDATORS_KEY: Hex = '0xcec5070d609dd3497f72bde07fc96ba088dcde934c658227ee1dfafcd6e16903';
