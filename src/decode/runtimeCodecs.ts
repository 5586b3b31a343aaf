// One runtime's compiled reading of blocks: its calls and events by index,
// the extrinsic envelope (signer, signature, the extensions that carry era,
// nonce and tip) and the event record, all as decoders into sidecar's JSON.
// Built once per runtime from the metadata polkadot.js already parsed for it.
import type { TypeRegistry } from '@polkadot/types';
import { TypeDefInfo, type TypeDef } from '@polkadot/types-create/types';
import { stringCamelCase, u8aToHex } from '@polkadot/util';

import { argToJson } from './codecJson';
import { IMMORTAL_ERA, listOf, TypeCompiler, type Decoder } from './compile';
import { docsText, type JsonValue } from './json';
import { TransactionExtensions } from './extensions';
import { ByteReader, DecodeError } from './reader';
import { ss58PrefixOf } from './ss58';

/** Thrown for what this reading does not cover; the block is then read by polkadot.js. */
export class UnsupportedFormat extends Error {}

interface CallEntry {
  pallet: string;
  method: string;
  docs: string;
  /** Arguments as a call at the top of an extrinsic prints them (calls inside shown as `{ method, args }`). */
  topArgs: { name: string; decode: Decoder }[];
  /** Arguments as a call nested in a value prints them (calls inside shown as `{ callIndex, args }`). */
  nestedArgs: { name: string; decode: Decoder }[];
}

interface EventEntry {
  pallet: string;
  method: string;
  docs: string;
  fields: Decoder[];
}

export interface DecodedCall {
  pallet: string;
  method: string;
  docs: string;
  args: { [name: string]: JsonValue };
}

/** An extrinsic's format: v4 signed or unsigned, v5 bare (as v4 unsigned) or general. */
export type ExtrinsicFormat = { version: 4 | 5; kind: 'bare' | 'signed' } | { version: 5; kind: 'general'; extensionVersion: number };

export interface DecodedExtrinsic {
  call: DecodedCall;
  /** null for an unsigned or bare extrinsic, and for a general one no extension signed */
  signature: { signature: JsonValue; signer: JsonValue } | null;
  nonce: JsonValue;
  tip: JsonValue;
  era: JsonValue;
  /** The asset its fee is paid in, where an extension says (null: the native token). Not in sidecar's JSON. */
  assetId?: JsonValue;
  /** Absent: v4, as the polkadot.js reading of old blocks gives it. */
  format?: ExtrinsicFormat;
}

export type EventPhase = { kind: 'applyExtrinsic'; index: number } | { kind: 'finalization' } | { kind: 'initialization' };

export interface DecodedEvent {
  phase: EventPhase;
  pallet: string;
  method: string;
  docs: string;
  data: JsonValue[];
}

/** The extrinsic format byte: its low six bits are the version, the top two the kind. */
const VERSION_MASK = 0x3f;
const KIND_MASK = 0xc0;
const SIGNED = 0x80;
const GENERAL = 0x40;
// Shared by every extrinsic of the kind: read, never changed.
const V4_BARE: ExtrinsicFormat = { version: 4, kind: 'bare' };
const V5_BARE: ExtrinsicFormat = { version: 5, kind: 'bare' };
const V4_SIGNED: ExtrinsicFormat = { version: 4, kind: 'signed' };

export class RuntimeCodecs {
  readonly compiler: TypeCompiler;
  private readonly calls: (CallEntry | undefined)[] = new Array(256 * 256);
  private readonly events: (EventEntry | undefined)[] = new Array(256 * 256);
  private readonly address: Decoder;
  private readonly signature: Decoder;
  readonly extensions: TransactionExtensions;
  private readonly topicsCheck: boolean;

  /** `metadataVersion`: the version the runtime gave its metadata in (polkadot.js converts it to the latest). */
  constructor(
    private readonly registry: TypeRegistry,
    metadataVersion = 16,
  ) {
    this.compiler = new TypeCompiler({
      registry,
      ss58Prefix: ss58PrefixOf(registry),
      nestedCall: (reader) => this.nestedCall(reader),
    });
    const metadata = registry.metadata;
    const { extrinsic } = metadata;
    this.extensions = new TransactionExtensions(registry, this.compiler, variantPayload, metadataVersion >= 16);
    this.address = this.compiler.decoderOf(extrinsic.addressType.toNumber());
    this.signature = this.compiler.decoderOf(extrinsic.signatureType.toNumber());
    this.topicsCheck = this.checkEventRecord();

    for (const pallet of metadata.pallets) {
      const palletIndex = pallet.index.toNumber();
      if (pallet.calls.isSome) {
        for (const variant of registry.lookup.getSiType(pallet.calls.unwrap().type).def.asVariant.variants) {
          this.defineCall(palletIndex, variant.index.toNumber());
        }
      }
      if (pallet.events.isSome) {
        const section = stringCamelCase(pallet.name);
        for (const variant of registry.lookup.getSiType(pallet.events.unwrap().type).def.asVariant.variants) {
          const types = variant.fields.map((field) => field.type.toNumber());
          const compiler = this.compiler;
          let fields: Decoder[] | undefined;
          const entry: EventEntry = {
            pallet: section,
            method: variant.name.toString(),
            docs: docsText(variant.docs),
            // Compiled on first use: most of a runtime's events never appear.
            get fields() {
              fields ??= types.map((type) => compiler.decoderOf(type));
              return fields;
            },
          };
          this.events[palletIndex * 256 + variant.index.toNumber()] = entry;
        }
      }
    }
  }

  /**
   * Decodes one extrinsic (with its length prefix): v4 signed or unsigned, v5 bare
   * or general. A v4 signature is followed by the extensions of version 0; a general
   * transaction names its extension version, whose list the metadata gives.
   */
  extrinsic(bytes: Uint8Array): DecodedExtrinsic {
    const reader = new ByteReader(bytes);
    const length = reader.compactNumber();
    if (length !== reader.remaining) throw new DecodeError(`extrinsic says ${length} bytes, has ${reader.remaining}`);
    const head = reader.u8();
    const version = head & VERSION_MASK;
    const kind = head & KIND_MASK;
    if (version !== 4 && version !== 5) throw new UnsupportedFormat(`extrinsic version ${version}`);
    if (kind === 0) {
      const call = this.topCall(reader);
      expectEnd(reader);
      return { call, signature: null, nonce: null, tip: null, era: IMMORTAL_ERA, format: version === 4 ? V4_BARE : V5_BARE };
    }
    if (version === 4 && kind === SIGNED) {
      const signer = this.address(reader);
      const signature = variantPayload(this.signature(reader));
      const facts = this.extensions.read(reader, 0);
      const call = this.topCall(reader);
      expectEnd(reader);
      const { nonce, tip, era, assetId } = facts;
      return { call, signature: { signature, signer }, nonce, tip, era, assetId, format: V4_SIGNED };
    }
    if (version === 5 && kind === GENERAL) {
      const extensionVersion = reader.u8();
      const facts = this.extensions.read(reader, extensionVersion);
      const call = this.topCall(reader);
      expectEnd(reader);
      const { signature, nonce, tip, era, assetId } = facts;
      return { call, signature, nonce, tip, era, assetId, format: { version, kind: 'general', extensionVersion } };
    }
    throw new DecodeError(`extrinsic format byte 0x${head.toString(16).padStart(2, '0')}`);
  }

  /** Decodes `Vec<EventRecord>` storage. */
  eventRecords(bytes: Uint8Array): DecodedEvent[] {
    const events = this.eventReader(bytes);
    const out: DecodedEvent[] = new Array(events.count);
    for (let i = 0; i < events.count; i++) out[i] = events.next();
    events.end();
    return out;
  }

  /** Reads `Vec<EventRecord>` one event at a time, so a caller can pause between them. */
  eventReader(bytes: Uint8Array): { count: number; next(): DecodedEvent; end(): void } {
    if (!this.topicsCheck) throw new UnsupportedFormat('event record layout');
    const reader = new ByteReader(bytes);
    const count = bytes.length === 0 ? 0 : reader.compactNumber();
    if (count > reader.remaining) throw new DecodeError(`${count} events in ${reader.remaining} bytes`);
    return { count, next: () => this.eventRecord(reader), end: () => expectEnd(reader) };
  }

  private eventRecord(reader: ByteReader): DecodedEvent {
    const phaseTag = reader.u8();
    let phase: EventPhase;
    if (phaseTag === 0) phase = { kind: 'applyExtrinsic', index: reader.u32() };
    else if (phaseTag === 1) phase = { kind: 'finalization' };
    else if (phaseTag === 2) phase = { kind: 'initialization' };
    else throw new DecodeError(`event phase ${phaseTag}`);
    const palletIndex = reader.u8();
    const variantIndex = reader.u8();
    const entry = this.events[palletIndex * 256 + variantIndex];
    if (!entry) throw new DecodeError(`no event [${palletIndex}, ${variantIndex}]`);
    const { fields } = entry;
    const data: JsonValue[] = new Array(fields.length);
    for (let f = 0; f < fields.length; f++) data[f] = fields[f](reader);
    reader.take(reader.compactNumber() * 32); // topics
    return { phase, pallet: entry.pallet, method: entry.method, docs: entry.docs, data };
  }

  /** A call at the top of an extrinsic, or an argument that is a call: `{ method: { pallet, method }, args }`. */
  topCall(reader: ByteReader): DecodedCall {
    const entry = this.callAt(reader);
    const args: { [name: string]: JsonValue } = {};
    for (const arg of entry.topArgs) args[arg.name] = arg.decode(reader);
    return { pallet: entry.pallet, method: entry.method, docs: entry.docs, args };
  }

  /** A call inside some other value: `{ callIndex, args }`, as polkadot.js prints a Call codec. */
  nestedCall(reader: ByteReader): JsonValue {
    const callIndex = u8aToHex(reader.bytes.subarray(reader.pos, reader.pos + 2));
    const entry = this.callAt(reader);
    const args: { [name: string]: JsonValue } = {};
    for (const arg of entry.nestedArgs) args[arg.name] = arg.decode(reader);
    return { callIndex, args };
  }

  private callAt(reader: ByteReader): CallEntry {
    const palletIndex = reader.u8();
    const callIndex = reader.u8();
    const entry = this.calls[palletIndex * 256 + callIndex];
    if (!entry) throw new DecodeError(`no call [${palletIndex}, ${callIndex}]`);
    return entry;
  }

  private defineCall(palletIndex: number, callIndex: number): void {
    const { registry, compiler } = this;
    const topArg = (name: string, type: number) => this.topArgDecoder(name, type);
    const found = registry.findMetaCall(new Uint8Array([palletIndex, callIndex]));
    const fields = found.meta.fields.map((field, i) => ({
      name: field.name.isSome ? field.name.unwrap().toString() : `param${i}`,
      type: field.type.toNumber(),
    }));
    let top: CallEntry['topArgs'] | undefined;
    let nested: CallEntry['nestedArgs'] | undefined;
    const entry = {
      pallet: found.section,
      method: found.method,
      docs: docsText(found.meta.docs),
      // Compiled on first use of the call.
      get topArgs() {
        top ??= fields.map(({ name, type }) => ({ name, decode: topArg(name, type) }));
        return top;
      },
      get nestedArgs() {
        nested ??= fields.map(({ name, type }) => ({ name, decode: compiler.decoderOf(type) }));
        return nested;
      },
    };
    this.calls[palletIndex * 256 + callIndex] = entry;
  }

  /**
   * A top-level call argument: a call (or a list of calls) is printed as
   * `{ method, args }` there, and opaque bytes named `call` as the call they hold.
   */
  private topArgDecoder(name: string, type: number): Decoder {
    const { compiler, registry } = this;
    const resolved = compiler.resolve(registry.lookup.getTypeDef(type));
    const top: Decoder = (reader) => {
      const call = this.topCall(reader);
      return { method: { pallet: call.pallet, method: call.method }, args: call.args };
    };
    if (isCall(resolved)) return top;
    if (
      (resolved.info === TypeDefInfo.Vec || resolved.info === TypeDefInfo.VecFixed) &&
      resolved.sub &&
      !Array.isArray(resolved.sub) &&
      isCall(compiler.resolve(resolved.sub))
    ) {
      return listOf(top, resolved.info === TypeDefInfo.VecFixed ? (resolved.length ?? 0) : undefined);
    }
    if (resolved.info === TypeDefInfo.Tuple && Array.isArray(resolved.sub) && resolved.sub.some((item) => isCall(compiler.resolve(item)))) {
      const items = resolved.sub.map((item) => (isCall(compiler.resolve(item)) ? top : compiler.compile(item)));
      return (reader) => items.map((item) => item(reader));
    }
    if (name === 'call' && isOpaque(resolved)) {
      // Calls carried as bytes (multisig, scheduler): shown decoded when they decode, by the reference reading.
      const typeName = registry.createLookupType(type);
      return (reader) => {
        const value = registry.createTypeUnsafe(typeName, [reader.bytes.subarray(reader.pos)]);
        reader.take(value.encodedLength);
        return argToJson(name, value, registry);
      };
    }
    return compiler.decoderOf(type);
  }

  /** Events must be `{ phase, event, topics: Vec<Hash> }` with the three phases, as every FRAME runtime has them. */
  private checkEventRecord(): boolean {
    const record = this.registry.lookup.types.find(({ type }) => type.path.join('::') === 'frame_system::EventRecord');
    if (!record?.type.def.isComposite) return false;
    const fields = record.type.def.asComposite.fields.map((field) => field.name.unwrapOr('').toString());
    if (fields.join() !== 'phase,event,topics') return false;
    const phase = this.registry.lookup.getSiType(record.type.def.asComposite.fields[0].type);
    if (!phase.def.isVariant) return false;
    const variants = phase.def.asVariant.variants.map((variant) => `${variant.index.toNumber()}:${variant.name.toString()}:${variant.fields.length}`);
    return variants.join() === '0:ApplyExtrinsic:1,1:Finalization:0,2:Initialization:0';
  }
}

/** Codecs for a runtime, or the reason there are none (the runtime is then read by polkadot.js alone). */
export function runtimeCodecsFor(registry: TypeRegistry, metadataVersion: number): RuntimeCodecs | UnsupportedFormat {
  // Before v14 the metadata names types instead of describing them: polkadot.js's type names are the only reading.
  if (metadataVersion < 14) return new UnsupportedFormat(`metadata v${metadataVersion}`);
  try {
    return new RuntimeCodecs(registry, metadataVersion);
  } catch (error) {
    return error instanceof UnsupportedFormat ? error : new UnsupportedFormat(String(error));
  }
}

function isCall(def: TypeDef): boolean {
  return def.info === TypeDefInfo.Plain && (def.type === 'Call' || def.type === 'RuntimeCall');
}

function isOpaque(def: TypeDef): boolean {
  return (def.info === TypeDefInfo.Plain && def.type === 'Bytes') || def.info === TypeDefInfo.WrapperKeepOpaque || def.info === TypeDefInfo.WrapperOpaque;
}

/** A MultiSignature is printed as its bytes, without the scheme's name (as polkadot.js gives `signature`). */
function variantPayload(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  return keys.length === 1 ? (value[keys[0]] ?? null) : value;
}

function expectEnd(reader: ByteReader): void {
  if (reader.remaining !== 0) throw new DecodeError(`${reader.remaining} bytes left over`);
}
