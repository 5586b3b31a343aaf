// Shaping: a block's extrinsics and events, decoded by either reading (the
// compiled one in src/decode, or polkadot.js's, decode/polkadotReference.ts),
// become sidecar's block JSON. Both end in `assembleBlock`, so everything after
// decoding (events to extrinsics, success, fee facts) is one code.
// No I/O here, so it is tested on recorded data alone (test/unit/blockShape.test.ts).
import type { DecodedBody } from '../../decode/decodedBody';
import type { HeaderFields } from '../../decode/header';
import type { JsonValue } from '../../decode/json';

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

const EVENTS_UNAVAILABLE = 'Unable to fetch Events, cannot confirm extrinsic status. Check pruning settings on the node.';

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
