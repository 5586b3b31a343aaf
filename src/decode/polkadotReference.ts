// The reference reading: polkadot.js's own codecs, printed as sidecar prints them.
// It is what the compiled reading (compile.ts, runtimeCodecs.ts, header.ts) is
// tested against, and what reads whatever that reading declines: metadata before
// v14, extrinsic formats it does not cover, bytes it rejects, headers with digest
// items or engines it does not know. Kept in one place, apart from the fast path.
import { extractAuthor } from '@polkadot/api-derive/type/util';
import { TypeRegistry, type GenericCall } from '@polkadot/types';
import type { AccountId, Block, EventRecord, Header } from '@polkadot/types/interfaces';
import { expandExtensionTypes } from '@polkadot/types/extrinsic/signedExtensions';
import { blake2AsU8a } from '@polkadot/util-crypto';

import { callToJson, toSidecarJson } from './codecJson';
import type { DecodedBody } from './decodedBody';
import type { HeaderFields, RpcHeaderJson } from './header';
import { bytesOfHex, hexOfBytes } from './hex';
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
  return events.map(
    ({ event, phase }): DecodedEvent => ({
      phase: phase.isApplyExtrinsic
        ? { kind: 'applyExtrinsic', index: phase.asApplyExtrinsic.toNumber() }
        : phase.isFinalization
          ? { kind: 'finalization' }
          : { kind: 'initialization' },
      pallet: event.section,
      method: event.method,
      docs: docsText(event.data.meta.docs),
      data: toSidecarJson(event.data) as JsonValue[],
    }),
  );
}

/**
 * A block's body (and its events, when the node gave them), in the compiled reading's terms. `carried`:
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
    const decodedCall = {
      pallet: call.method.pallet,
      method: call.method.method,
      docs: docsText(extrinsic.meta.docs),
      args: call.args as { [name: string]: JsonValue },
    };
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
