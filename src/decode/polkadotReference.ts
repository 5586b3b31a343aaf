// The reference reading: polkadot.js's own codecs, printed as sidecar prints them.
// It is what the compiled reading (compile.ts, runtimeCodecs.ts, header.ts) is
// tested against, and what reads whatever that reading declines: metadata before
// v14, extrinsic formats it does not cover, bytes it rejects, headers with digest
// items or engines it does not know. Kept in one place, apart from the fast path.
import { extractAuthor } from '@polkadot/api-derive/type/util';
import { TypeRegistry, type GenericCall } from '@polkadot/types';
import type { AccountId, Block, EventRecord, Header } from '@polkadot/types/interfaces';

import { callToJson, toSidecarJson } from './codecJson';
import type { DecodedBody } from './decodedBody';
import type { HeaderFields, RpcHeaderJson } from './header';
import { docsText, type JsonValue } from './json';
import type { DecodedEvent, DecodedExtrinsic } from './runtimeCodecs';

/** Headers need no runtime: the standard layout every chain here uses. */
const headerRegistry = new TypeRegistry();

/** A header as polkadot.js reads it with the standard layout. */
export function headerCodecOf(header: RpcHeaderJson): Header {
  return headerRegistry.createType('Header', header);
}

/** A header's digest logs as sidecar's block JSON lists them: `{ type, index, value }` each. */
export function logsToJson(header: Header): JsonValue[] {
  return header.digest.logs.map(({ type, index, value }) => ({ type, index: toSidecarJson(index), value: toSidecarJson(value) }));
}

/** A header's fields for a block answer, its author found among `validators`. */
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

/** `Session.Validators` storage read by `registry`. */
export function validatorsOf(registry: TypeRegistry, bytes: Uint8Array): AccountId[] {
  return registry.createType('Vec<AccountId>', bytes) as unknown as AccountId[];
}

/** `System.Events` storage read by `registry`. */
export function eventRecordsOf(registry: TypeRegistry, bytes: Uint8Array): EventRecord[] {
  return registry.createType('Vec<EventRecord>', bytes) as unknown as EventRecord[];
}

/** A block's events, in the compiled reading's terms. */
export function eventsWithCodecs(events: EventRecord[]): DecodedEvent[] {
  return events.map(({ event, phase }): DecodedEvent => ({
    phase: phase.isApplyExtrinsic
      ? { kind: 'applyExtrinsic', index: phase.asApplyExtrinsic.toNumber() }
      : phase.isFinalization
        ? { kind: 'finalization' }
        : { kind: 'initialization' },
    pallet: event.section,
    method: event.method,
    docs: docsText(event.data.meta.docs),
    data: toSidecarJson(event.data) as JsonValue[],
  }));
}

/** A block's body (and its events, when the node gave them), in the compiled reading's terms. */
export function decodeWithCodecs(block: Block, events: EventRecord[] | null): DecodedBody {
  const registry = block.registry as TypeRegistry;
  const extrinsics: DecodedExtrinsic[] = [];
  const extrinsicBytes: Uint8Array[] = [];
  const hashes: string[] = [];
  for (const extrinsic of block.extrinsics) {
    const { isSigned } = extrinsic;
    const call = callToJson(extrinsic.method as unknown as GenericCall, registry);
    extrinsics.push({
      call: { pallet: call.method.pallet, method: call.method.method, docs: docsText(extrinsic.meta.docs), args: call.args as { [name: string]: JsonValue } },
      signature: isSigned ? { signature: toSidecarJson(extrinsic.signature), signer: toSidecarJson(extrinsic.signer) } : null,
      nonce: isSigned ? toSidecarJson(extrinsic.nonce) : null,
      tip: isSigned ? toSidecarJson(extrinsic.tip) : null,
      era: toSidecarJson(extrinsic.era),
    });
    extrinsicBytes.push(extrinsic.toU8a());
    hashes.push(extrinsic.hash.toHex());
  }
  const decodedEvents = events && eventsWithCodecs(events);
  return { extrinsics, extrinsicBytes, hashes, events: decodedEvents };
}
