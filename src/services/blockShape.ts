// Shaping: a block's extrinsics and events, decoded by either reading, become
// sidecar's block JSON. The compiled reading (src/decode) is the one used; the
// polkadot.js reading is the reference it is tested against and the fallback
// for what the compiled one does not cover. Both end in `assembleBlock`, so
// everything after decoding (events to extrinsics, success, fee facts) is one code.
// No I/O here, so it is tested on recorded data alone (test/unit/blockShape.test.ts).
import { extractAuthor } from '@polkadot/api-derive/type/util';
import type { GenericCall, TypeRegistry } from '@polkadot/types';
import type { AccountId, Block, EventRecord, Header } from '@polkadot/types/interfaces';
import type { Codec } from '@polkadot/types-codec/types';
import { expandExtensionTypes } from '@polkadot/types/extrinsic/signedExtensions';
import { blake2AsU8a } from '@polkadot/util-crypto';

import { callToJson, toSidecarJson, type JsonValue } from '../decode/codecJson';
import { bytesOfHex, hexOfBytes } from '../decode/hex';
import type { HeaderFields } from '../decode/header';
import type { DecodedEvent, DecodedExtrinsic } from '../decode/runtimeCodecs';

export interface ShapeOptions {
  eventDocs: boolean;
  extrinsicDocs: boolean;
}

export interface SidecarEvent {
  method: { pallet: string; method: string };
  data: JsonValue;
  docs?: string;
}

export interface SidecarExtrinsic {
  method: { pallet: string; method: string };
  signature: { signature: JsonValue; signer: JsonValue } | null;
  nonce: JsonValue;
  args: JsonValue;
  tip: JsonValue;
  hash: string;
  info: Record<string, JsonValue>;
  era: JsonValue;
  events: SidecarEvent[];
  success: boolean | string;
  paysFee: boolean | null;
  /** Only on a general (v5) transaction, which sidecar cannot show: 5. */
  version?: 5;
  /** Only on a general transaction: the version of the extension list it carries. */
  transactionExtensionVersion?: number;
  docs?: string;
}

export interface SidecarBlock {
  number: string;
  hash: string;
  parentHash: string;
  stateRoot: string;
  extrinsicsRoot: string;
  authorId?: JsonValue;
  logs: JsonValue[];
  onInitialize: { events: SidecarEvent[] };
  extrinsics: SidecarExtrinsic[];
  onFinalize: { events: SidecarEvent[] };
  finalized?: boolean;
}

/** What fee resolution needs to know of each extrinsic, kept beside the JSON. */
export interface ExtrinsicFacts {
  isSigned: boolean;
  /** The extrinsic as the block carries it (with its length prefix): fee queries send it back. */
  bytes: Uint8Array;
  /** What the ExtrinsicSuccess/Failed event reports, as printed (a weight is a string, or `{ refTime, proofSize }`). */
  completion?: { weight: JsonValue; class: JsonValue; feeFromEvent?: string };
  hasCompletionEvent: boolean;
}

export const EVENTS_UNAVAILABLE =
  'Unable to fetch Events, cannot confirm extrinsic status. Check pruning settings on the node.';

export function joinDocs(docs: readonly Codec[]): string {
  return docs.map((line) => line.toString()).join('\n');
}

/** A header's digest logs as sidecar lists them: `{ type, index, value }` each. */
export function logsToJson(header: Header): JsonValue[] {
  return header.digest.logs.map(({ type, index, value }) => ({ type, index: toSidecarJson(index), value: toSidecarJson(value) }));
}

/** polkadot.js's reading of a header: the reference, and what reads headers the compiled reading declines. */
export function headerFieldsOf(header: Header, validators: AccountId[]): HeaderFields {
  const author = extractAuthor(header.digest, validators);
  return {
    number: header.number.unwrap().toString(10),
    parentHash: header.parentHash.toHex(),
    stateRoot: header.stateRoot.toHex(),
    extrinsicsRoot: header.extrinsicsRoot.toHex(),
    authorId: author ? toSidecarJson(author) : undefined,
    logs: logsToJson(header),
  };
}

export interface DecodedBody {
  extrinsics: DecodedExtrinsic[];
  /** Each extrinsic's bytes, with its length prefix, as the block carries them. */
  extrinsicBytes: Uint8Array[];
  /** Each extrinsic's hash (blake2-256 of those bytes). */
  hashes: string[];
  /** null when the node could not give the events (pruned state). */
  events: DecodedEvent[] | null;
}

/** polkadot.js's reading of a block's events, in the compiled reading's terms. */
export function eventsWithCodecs(events: EventRecord[]): DecodedEvent[] {
  return events.map(({ event, phase }): DecodedEvent => ({
    phase: phase.isApplyExtrinsic
      ? { kind: 'applyExtrinsic', index: phase.asApplyExtrinsic.toNumber() }
      : phase.isFinalization
        ? { kind: 'finalization' }
        : { kind: 'initialization' },
    pallet: event.section,
    method: event.method,
    docs: joinDocs(event.data.meta.docs),
    data: toSidecarJson(event.data) as JsonValue[],
  }));
}

/**
 * The polkadot.js reading of a block's body: the reference, and the fallback. `carried`:
 * the extrinsics as the block carries them, for their bytes and hashes; without it they
 * are polkadot.js's encoding, which is not the carried one for a general (v5)
 * extrinsic (polkadot.js 16 writes its length and format byte twice).
 */
export function decodeWithCodecs(block: Block, events: EventRecord[] | null, carried?: readonly string[]): DecodedBody {
  const registry = block.registry as TypeRegistry;
  const extrinsics: DecodedExtrinsic[] = [];
  const extrinsicBytes: Uint8Array[] = [];
  const hashes: string[] = [];
  for (const extrinsic of block.extrinsics) {
    const call = callToJson(extrinsic.method as unknown as GenericCall, registry);
    const decodedCall = { pallet: call.method.pallet, method: call.method.method, docs: joinDocs(extrinsic.meta.docs), args: call.args as { [name: string]: JsonValue } };
    if (extrinsic.isGeneral()) {
      // polkadot.js reads a general transaction by every extension the metadata names, in
      // one list, and reads nothing for extensions it does not know (a signing one among
      // them): right only where that is the list of the transaction's version. Elsewhere
      // its reading is wrong, and no answer is better than a wrong one.
      const inner = extrinsic.inner as unknown as { transactionExtensionVersion: { toNumber(): number }; encodedLength: number };
      const version = inner.transactionExtensionVersion.toNumber();
      const held = carried?.[extrinsics.length];
      if (!polkadotJsReadsVersion(registry, version) || (held !== undefined && inner.encodedLength !== generalBodyLength(bytesOfHex(held)))) {
        throw new Error(`polkadot.js cannot read this general transaction: its extensions (version ${version}) are not the ones polkadot.js reads`);
      }
      extrinsics.push({
        call: decodedCall,
        signature: null,
        nonce: toSidecarJson(extrinsic.nonce),
        tip: toSidecarJson(extrinsic.tip),
        era: toSidecarJson(extrinsic.era),
        format: { version: 5, kind: 'general', extensionVersion: version },
      });
    } else {
      const { isSigned } = extrinsic;
      extrinsics.push({
        call: decodedCall,
        signature: isSigned ? { signature: toSidecarJson(extrinsic.signature), signer: toSidecarJson(extrinsic.signer) } : null,
        nonce: isSigned ? toSidecarJson(extrinsic.nonce) : null,
        tip: isSigned ? toSidecarJson(extrinsic.tip) : null,
        era: toSidecarJson(extrinsic.era),
        format: { version: extrinsic.type === 5 ? 5 : 4, kind: isSigned ? 'signed' : 'bare' },
      });
    }
    const bytes = carried ? bytesOfHex(carried[extrinsicBytes.length]) : extrinsic.toU8a();
    extrinsicBytes.push(bytes);
    hashes.push(carried ? hexOfBytes(blake2AsU8a(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), 256)) : extrinsic.hash.toHex());
  }
  const decodedEvents = events && eventsWithCodecs(events);
  return { extrinsics, extrinsicBytes, hashes, events: decodedEvents };
}

/**
 * Whether polkadot.js reads general transactions of extension `version` right: it reads
 * data for each extension of the metadata it knows with data, in the metadata's order,
 * and nothing for the others; the transaction holds data for each extension of its
 * version that has any. Right where those are the same extensions in the same order.
 */
function polkadotJsReadsVersion(registry: TypeRegistry, version: number): boolean {
  const { transactionExtensions, transactionExtensionsByVersion } = registry.metadata.extrinsic;
  const listed = [...transactionExtensionsByVersion.entries()].find(([listedVersion]) => listedVersion.toNumber() === version)?.[1];
  if (!listed) return false;
  const read = transactionExtensions
    .map((extension) => extension.identifier.toString())
    .filter((identifier) => Object.keys(expandExtensionTypes([identifier], 'extrinsic')).length > 0);
  const held = listed
    .map((index) => transactionExtensions[index.toNumber()])
    .filter((extension) => extension && !carriesNothing(registry, extension.type.toNumber()))
    .map((extension) => extension.identifier.toString());
  return read.join() === held.join();
}

/** A type of no bytes: `()`, or a struct or tuple of such types. */
function carriesNothing(registry: TypeRegistry, type: number): boolean {
  const { def } = registry.lookup.getSiType(type);
  if (def.isComposite) return def.asComposite.fields.every((field) => carriesNothing(registry, field.type.toNumber()));
  if (def.isTuple) return def.asTuple.every((item) => carriesNothing(registry, item.toNumber()));
  return false;
}

/** The bytes of a general extrinsic after its length prefix and format byte: what polkadot.js decodes as its struct. */
function generalBodyLength(bytes: Uint8Array): number {
  const mode = bytes[0] & 3;
  const prefix = mode === 0 ? 1 : mode === 1 ? 2 : mode === 2 ? 4 : 5 + (bytes[0] >> 2);
  return bytes.length - prefix - 1;
}

function hasPaysFee(value: unknown): value is { paysFee: unknown } {
  return typeof value === 'object' && value !== null && 'paysFee' in value;
}

function isDispatchInfo(value: unknown): value is { weight: JsonValue; class: JsonValue } {
  return typeof value === 'object' && value !== null && 'weight' in value && 'class' in value;
}

/** A decoded body and its header's fields as sidecar's block JSON, and the facts fees need. */
export function assembleBlock(
  hash: string,
  header: HeaderFields,
  decoded: DecodedBody,
  options: ShapeOptions,
): { body: SidecarBlock; facts: ExtrinsicFacts[] } {
  const { events } = decoded;
  const facts: ExtrinsicFacts[] = [];
  // General transactions no extension signed: whoever their authorization made the origin
  // pays, and only a TransactionFeePaid event says what (there is no signer to ask about).
  const authorized = new Set<number>();
  const extrinsics: SidecarExtrinsic[] = decoded.extrinsics.map((extrinsic, index) => {
    const isSigned = extrinsic.signature !== null;
    const general = extrinsic.format?.kind === 'general' ? extrinsic.format : undefined;
    if (general && !isSigned) authorized.add(index);
    const bytes = decoded.extrinsicBytes[index];
    facts.push({ isSigned, bytes, hasCompletionEvent: false });
    const shaped: SidecarExtrinsic = {
      method: { pallet: extrinsic.call.pallet, method: extrinsic.call.method },
      signature: extrinsic.signature,
      nonce: extrinsic.nonce,
      args: extrinsic.call.args,
      tip: extrinsic.tip,
      hash: decoded.hashes[index],
      info: {},
      era: extrinsic.era,
      events: [],
      success: events === null ? EVENTS_UNAVAILABLE : false,
      paysFee: isSigned || general ? null : false,
    };
    if (general) {
      shaped.version = 5;
      shaped.transactionExtensionVersion = general.extensionVersion;
    }
    shaped.docs = options.extrinsicDocs ? extrinsic.call.docs : undefined;
    return shaped;
  });

  const onInitialize = { events: [] as SidecarEvent[] };
  const onFinalize = { events: [] as SidecarEvent[] };
  const feePaid = new Map<number, string>();
  for (const event of events ?? []) {
    const { phase, data } = event;
    const shaped: SidecarEvent = { method: { pallet: event.pallet, method: event.method }, data, docs: options.eventDocs ? event.docs : undefined };
    if (phase.kind === 'applyExtrinsic') {
      const { index } = phase;
      const extrinsic = extrinsics[index];
      if (!extrinsic) throw new Error(`event for missing extrinsic ${index} in block ${hash}`);
      const fact = facts[index];
      const isSuccess = event.method === 'ExtrinsicSuccess';
      const isFailure = event.method === 'ExtrinsicFailed';
      if (isSuccess) extrinsic.success = true;
      if (isSuccess || isFailure) {
        fact.hasCompletionEvent = true;
        for (const item of data) {
          if (extrinsic.paysFee !== false && hasPaysFee(item)) {
            extrinsic.paysFee = item.paysFee === true || item.paysFee === 'Yes';
            break;
          }
        }
        // DispatchInfo is the last item of both ExtrinsicSuccess and ExtrinsicFailed.
        const dispatchInfo = data[data.length - 1];
        if (isDispatchInfo(dispatchInfo)) fact.completion = { weight: dispatchInfo.weight, class: dispatchInfo.class };
      }
      if (event.method === 'TransactionFeePaid') feePaid.set(index, String(data[1]));
      extrinsic.events.push(shaped);
    } else if (phase.kind === 'finalization') {
      onFinalize.events.push(shaped);
    } else {
      onInitialize.events.push(shaped);
    }
  }
  for (const [index, fee] of feePaid) {
    const completion = facts[index].completion;
    if (completion) completion.feeFromEvent = fee;
    // An authorized general transaction whose origin paid: its fee is the event's, as a signer's.
    if (authorized.has(index)) facts[index].isSigned = true;
  }
  for (const index of authorized) {
    if (!feePaid.has(index) && events !== null) extrinsics[index].paysFee = false;
  }

  const body: SidecarBlock = {
    number: header.number,
    hash,
    parentHash: header.parentHash,
    stateRoot: header.stateRoot,
    extrinsicsRoot: header.extrinsicsRoot,
    authorId: header.authorId,
    logs: header.logs,
    onInitialize,
    extrinsics,
    onFinalize,
  };
  return { body, facts };
}

/** The reference reading, end to end: polkadot.js codecs to sidecar's JSON. */
export function shapeBlock(
  hash: string,
  block: Block,
  events: EventRecord[] | null,
  validators: AccountId[],
  options: ShapeOptions,
): { body: SidecarBlock; facts: ExtrinsicFacts[] } {
  return assembleBlock(hash, headerFieldsOf(block.header, validators), decodeWithCodecs(block, events), options);
}
