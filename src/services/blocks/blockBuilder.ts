// Builds one block's answer from the node, in waves: what does not depend on an
// earlier answer goes out together, and each answer is used as soon as it comes
// (the extrinsics are read while the events are on their way). Decoding is the
// compiled reading's, polkadot.js's where it declines (bodyDecoding.ts); shaping
// is one assembly for both (blockShape.ts); fees come last, only where no event
// reported them (fees.ts).
import type { Block } from '@polkadot/types/interfaces';

import { bytesOfHex } from '../../decode/hex';
import { eventRecordsOf } from '../../decode/polkadotReference';
import { UnknownBlockError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { serializeBlock, type BlockAnswer, type BlockQuery } from './blockAnswer';
import type { BlockIds } from '../shared/at/blockIds';
import { assembleBlock } from './blockShape';
import { decodeBody } from './bodyDecoding';
import type { FeeDetailsKnowledge } from '../feeRules';
import { resolveFees } from '../fees';
import type { FinalizedHead } from '../finalizedHead';
import { blockHeaderFields } from '../headers';
import type { RuntimeRegistry } from '../runtimes';
import { SESSION_VALIDATORS_KEY, storageAt, SYSTEM_EVENTS_KEY } from '../shared/storage/wellKnownKeys';
import { xcmMessages } from './xcm';

export interface BuildOptions {
  /** A hash id: the block must also be the canonical one at its height to be called finalized (as sidecar checks). */
  checkCanonical: boolean;
  /** The parent's hash, when the caller knows it: the parent's runtime version then comes in the first wave. */
  parentHash?: Hex;
}

export class BlockBuilder {
  /**
   * @param genesisHash block 0's hash as the node reported it at start (chopsticks makes one up for a chain it built from a spec)
   * @param feeDetails what each runtime was found to say of fee details, shared by every request's builder
   */
  constructor(
    private readonly node: NodeClient,
    private readonly runtimes: RuntimeRegistry,
    private readonly finalized: FinalizedHead,
    private readonly ids: BlockIds,
    private readonly genesisHash: Hex,
    private readonly feeDetails: FeeDetailsKnowledge,
  ) {}

  async build(hash: Hex, query: BlockQuery, { checkCanonical, parentHash: parentHint }: BuildOptions): Promise<BlockAnswer> {
    const { node } = this;
    // Wave 1: everything that needs only the hash (and the parent's hash, when known), the
    // small answers asked first. The events, the biggest answer, come last: the block's
    // extrinsics are read while they are on their way. Each is awaited when needed, and
    // none is left unhandled should an earlier one fail.
    const hintedVersionCall = handledLater(parentHint ? node.getRuntimeVersion(parentHint) : Promise.resolve(undefined));
    const finalizedCall = handledLater(this.finalized.current());
    const validatorsCall = handledLater(storageAt(node, SESSION_VALIDATORS_KEY, hash));
    const blockCall = handledLater(node.getBlock(hash));
    // As bytes at once: the hex (twice their size) is not kept while the block is read.
    const eventsBytesCall = handledLater(
      storageAt(node, SYSTEM_EVENTS_KEY, hash).then((eventsHex) => (eventsHex === undefined ? null : eventsHex ? bytesOfHex(eventsHex) : new Uint8Array())),
    );
    const [rpcBlock, hintedVersion, finalizedNumber] = await wave([blockCall, hintedVersionCall, finalizedCall] as const);
    if (!rpcBlock) throw new UnknownBlockError(hash);
    const number = parseInt(rpcBlock.block.header.number, 16);
    // A block was executed, and its events encoded, by the runtime of its parent's state: the
    // block that enacts an upgrade already reports the new one in its own. Genesis has only its own.
    const parentHash = rpcBlock.block.header.parentHash;
    const decodedAt = number === 0 ? hash : parentHash;

    // Wave 2 (a hash id, or a parent that moved under us): the runtime version there and,
    // for a hash id, whether the block is on the canonical chain.
    const canonicalCheck =
      checkCanonical && number <= finalizedNumber ? this.ids.hashOf(number).then((canonical) => canonical === hash) : Promise.resolve(true);
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
        events: eventsBytes && eventRecordsOf(registry, eventsBytes),
      })),
    );
    // Genesis is asked for by the hash the node reported at start.
    const isAskedFor = (headerHash: string) => (number === 0 ? hash === this.genesisHash : headerHash === hash);
    const validatorsHex = await validatorsCall;
    const headerFields = blockHeaderFields(rpcBlock.block.header, validatorsHex, registry, isAskedFor);
    if (!headerFields) throw new UnknownBlockError(hash);
    const [decoded, eventsBytes] = await wave([decoding, eventsBytesCall] as const);
    const { body, facts } = assembleBlock(hash, headerFields, decoded, query);

    // Last wave, only for fees no event reported: the runtime's answers at the parent.
    if (number !== 0) {
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
      ...serializeBlock(body),
      xcm: query.decodedXcmMsgs ? JSON.stringify(xcmMessages(registry, version.specName, referenceBlock())) : undefined,
      finalized,
      // Complete only with everything read: the events and the author's validators (pruned state gives neither).
      immutable: finalized && eventsBytes !== null && validatorsHex !== undefined,
      fromCache: false,
      extrinsicHashes: decoded.hashes,
    };
  }
}

/** `promise`, marked as handled now: it is awaited later, and may fail before that. */
function handledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
