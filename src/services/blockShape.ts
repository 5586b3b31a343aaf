// Pure shaping: a decoded block and its events become sidecar's block JSON.
// No I/O here, so it is tested on recorded data alone (test/unit/blockShape.test.ts).
import { extractAuthor } from '@polkadot/api-derive/type/util';
import { GenericCall, type TypeRegistry } from '@polkadot/types';
import type { AccountId, Block, EventRecord, Header } from '@polkadot/types/interfaces';
import type { Codec } from '@polkadot/types-codec/types';
import { u8aToHex } from '@polkadot/util';
import { blake2AsU8a } from '@polkadot/util-crypto';

import { toSidecarJson, type JsonValue } from './sanitize';

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
  /** The weight the ExtrinsicSuccess/Failed event reports, as the event decoded it. */
  completion?: { weight: Codec; class: Codec; feeFromEvent?: string };
  hasCompletionEvent: boolean;
}

export const EVENTS_UNAVAILABLE =
  'Unable to fetch Events, cannot confirm extrinsic status. Check pruning settings on the node.';

export function joinDocs(docs: readonly Codec[]): string {
  return docs.map((line) => line.toString()).join('\n');
}

function callToJson(call: GenericCall, registry: TypeRegistry): { method: { pallet: string; method: string }; args: JsonValue } {
  const args: { [key: string]: JsonValue } = {};
  const argStruct = call.get('args') as (Codec & { defKeys?: string[]; get(key: string): Codec | undefined }) | undefined;
  for (const name of argStruct?.defKeys ?? []) {
    const value = argStruct?.get(name);
    args[name] = argToJson(name, value, registry);
  }
  return { method: { pallet: call.section, method: call.method }, args };
}

function argToJson(name: string, value: Codec | undefined, registry: TypeRegistry): JsonValue {
  if (Array.isArray(value)) {
    return value.map((item: unknown) => (item instanceof GenericCall ? callToJson(item, registry) : toSidecarJson(item)));
  }
  if (value instanceof GenericCall) return callToJson(value, registry);
  // Calls carried as opaque bytes (multisig, scheduler) are shown decoded when they decode.
  if (value && name === 'call' && ['Bytes', 'WrapperKeepOpaque<Call>', 'WrapperOpaque<Call>'].includes(value.toRawType())) {
    try {
      return callToJson(registry.createType('Call', value.toHex()), registry);
    } catch {
      return toSidecarJson(value);
    }
  }
  return toSidecarJson(value);
}

function eventToJson(record: EventRecord, eventDocs: boolean): SidecarEvent {
  const { event } = record;
  return {
    method: { pallet: event.section, method: event.method },
    data: toSidecarJson(event.data),
    docs: eventDocs ? joinDocs(event.data.meta.docs) : undefined,
  };
}

/** A header's digest logs as sidecar lists them: `{ type, index, value }` each. */
export function logsToJson(header: Header): JsonValue[] {
  return header.digest.logs.map(({ type, index, value }) => ({ type, index: toSidecarJson(index), value: toSidecarJson(value) }));
}

function hasPaysFee(value: unknown): value is { paysFee: unknown } {
  return typeof value === 'object' && value !== null && 'paysFee' in value;
}

export function shapeBlock(
  registry: TypeRegistry,
  hash: string,
  block: Block,
  events: EventRecord[] | null,
  validators: AccountId[],
  options: ShapeOptions,
): { body: SidecarBlock; facts: ExtrinsicFacts[] } {
  const { header } = block;
  const facts: ExtrinsicFacts[] = [];
  const extrinsics: SidecarExtrinsic[] = block.extrinsics.map((extrinsic) => {
    const { isSigned } = extrinsic;
    facts.push({ isSigned, hasCompletionEvent: false });
    return {
      method: { pallet: extrinsic.method.section, method: extrinsic.method.method },
      signature: isSigned ? { signature: toSidecarJson(extrinsic.signature), signer: toSidecarJson(extrinsic.signer) } : null,
      nonce: isSigned ? toSidecarJson(extrinsic.nonce) : null,
      args: callToJson(extrinsic.method as unknown as GenericCall, registry).args,
      tip: isSigned ? toSidecarJson(extrinsic.tip) : null,
      hash: u8aToHex(blake2AsU8a(extrinsic.toU8a(), 256)),
      info: {},
      era: toSidecarJson(extrinsic.era),
      events: [],
      success: events === null ? EVENTS_UNAVAILABLE : false,
      paysFee: isSigned ? null : false,
      docs: options.extrinsicDocs ? joinDocs(extrinsic.meta.docs) : undefined,
    };
  });

  const onInitialize = { events: [] as SidecarEvent[] };
  const onFinalize = { events: [] as SidecarEvent[] };
  const feePaid = new Map<number, string>();
  for (const record of events ?? []) {
    const { event, phase } = record;
    const shaped = eventToJson(record, options.eventDocs);
    if (phase.isApplyExtrinsic) {
      const index = phase.asApplyExtrinsic.toNumber();
      const extrinsic = extrinsics[index];
      if (!extrinsic) throw new Error(`event for missing extrinsic ${index} in block ${hash}`);
      const fact = facts[index];
      const isSuccess = event.method === 'ExtrinsicSuccess';
      const isFailure = event.method === 'ExtrinsicFailed';
      if (isSuccess) extrinsic.success = true;
      if (isSuccess || isFailure) {
        fact.hasCompletionEvent = true;
        for (const item of event.data.toJSON() as unknown[]) {
          if (extrinsic.signature && hasPaysFee(item)) {
            extrinsic.paysFee = item.paysFee === true || item.paysFee === 'Yes';
            break;
          }
        }
        // DispatchInfo is the last item of both ExtrinsicSuccess and ExtrinsicFailed.
        const dispatchInfo = event.data[event.data.length - 1] as Codec & { weight?: Codec; class?: Codec };
        if (dispatchInfo?.weight && dispatchInfo.class) {
          fact.completion = { weight: dispatchInfo.weight, class: dispatchInfo.class };
        }
      }
      if (event.method === 'TransactionFeePaid') feePaid.set(index, event.data[1].toString());
      extrinsic.events.push(shaped);
    } else if (phase.isFinalization) {
      onFinalize.events.push(shaped);
    } else if (phase.isInitialization) {
      onInitialize.events.push(shaped);
    }
  }
  for (const [index, fee] of feePaid) {
    const completion = facts[index].completion;
    if (completion) completion.feeFromEvent = fee;
  }

  const author = extractAuthor(header.digest, validators);
  const body: SidecarBlock = {
    number: header.number.unwrap().toString(10),
    hash,
    parentHash: header.parentHash.toHex(),
    stateRoot: header.stateRoot.toHex(),
    extrinsicsRoot: header.extrinsicsRoot.toHex(),
    authorId: author ? toSidecarJson(author) : undefined,
    logs: logsToJson(header),
    onInitialize,
    extrinsics,
    onFinalize,
  };
  return { body, facts };
}
