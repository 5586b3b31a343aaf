// Compiles a runtime's types into decoders that read SCALE bytes straight
// into sidecar's JSON. The type shapes are polkadot.js's own reading of the
// metadata (its TypeDefs: which wrappers are flattened, which paths are
// special, how fields are named), so the JSON comes out as sidecar's does;
// the decoding itself builds no Codec objects. Each type is compiled once per
// runtime, on first use.
//
// Types with their own encoding or printing that blocks seldom carry (identity
// data, votes, bit vectors, ...) are handed to polkadot.js value by value:
// exact by construction, and rare enough not to cost.
import type { TypeRegistry } from '@polkadot/types';
import { TypeDefInfo, type TypeDef } from '@polkadot/types-create/types';
import { stringCamelCase } from '@polkadot/util';

import { toSidecarJson } from './codecJson';
import { type ByteReader, DecodeError } from './reader';
import { ss58At } from './ss58';
import { mapKeyOf, type JsonValue } from './json';

export type Decoder = (reader: ByteReader) => JsonValue;

const UINT_BYTES: Record<string, number> = {
  u8: 1,
  u16: 2,
  u32: 4,
  u64: 8,
  u128: 16,
  u256: 32,
  U64: 8,
  U128: 16,
  U256: 32,
  Percent: 1,
  PerU16: 2,
  Permill: 4,
  Perbill: 4,
  Perquintill: 8,
};
const INT_BYTES: Record<string, number> = { i8: 1, i16: 2, i32: 4, i64: 8, i128: 16, i256: 32 };
const HASH_BYTES: Record<string, number> = { H64: 8, H160: 20, H256: 32, H512: 64 };
/**
 * A count no vector can have: past the bytes left, beyond what zero-sized items
 * (`()`, empty structs) explain. Bounds the work garbage lengths can ask for.
 */
const ZERO_SIZED_SLACK = 1024;
const BYTE_VECTORS = new Set(['Bytes', 'OpaquePeerId', 'OpaqueMultiaddr', 'OpaqueMetadata']);

export interface CompileContext {
  registry: TypeRegistry;
  ss58Prefix: number;
  /** A call nested in a value: `{ callIndex, args }`, as polkadot.js prints a Call codec. */
  nestedCall: Decoder;
}

export class TypeCompiler {
  private readonly byIndex = new Map<number, Decoder>();

  constructor(private readonly context: CompileContext) {}

  /** The decoder of the metadata's type `index`. */
  decoderOf(index: number): Decoder {
    const known = this.byIndex.get(index);
    if (known) return known;
    // Recursive types reach themselves while compiling: they get this forwarder until done.
    let compiled: Decoder | undefined;
    this.byIndex.set(index, (reader) => compiled!(reader));
    compiled = this.compile(this.context.registry.lookup.getTypeDef(index));
    this.byIndex.set(index, compiled);
    return compiled;
  }

  /** What polkadot.js makes of a type once references are followed. */
  resolve(def: TypeDef): TypeDef {
    let resolved = def;
    for (let target = referenceOf(resolved); target !== undefined; target = referenceOf(resolved)) {
      resolved = this.context.registry.lookup.getTypeDef(target);
    }
    return resolved;
  }

  compile(def: TypeDef): Decoder {
    switch (def.info) {
      case TypeDefInfo.Si: {
        const target = referenceOf(def);
        return target === undefined ? this.delegate(def) : this.decoderOf(target);
      }
      case TypeDefInfo.Plain:
        return this.plain(def);
      case TypeDefInfo.Null:
        return () => null;
      case TypeDefInfo.Compact:
        return this.compact(def);
      case TypeDefInfo.Option:
        return this.option(def);
      case TypeDefInfo.Result:
        return this.result(def);
      case TypeDefInfo.Enum:
        return this.enumeration(def);
      case TypeDefInfo.Struct:
        return this.struct(def);
      case TypeDefInfo.Tuple:
        return this.tuple(subsOf(def));
      case TypeDefInfo.Vec:
        return this.vector(subOf(def));
      case TypeDefInfo.VecFixed:
        return this.fixedVector(subOf(def), def.length ?? 0);
      case TypeDefInfo.BTreeMap:
        return this.map(def);
      case TypeDefInfo.BTreeSet:
        return this.vector(subOf(def));
      case TypeDefInfo.UInt:
        return uintDecoder((def.length ?? 0) / 8);
      case TypeDefInfo.Int:
        return intDecoder((def.length ?? 0) / 8);
      default:
        return this.delegate(def);
    }
  }

  private plain(def: TypeDef): Decoder {
    const name = def.type;
    const uintBytes = UINT_BYTES[name];
    if (uintBytes !== undefined) return uintDecoder(uintBytes);
    const intBytes = INT_BYTES[name];
    if (intBytes !== undefined) return intDecoder(intBytes);
    const hashBytes = HASH_BYTES[name];
    if (hashBytes !== undefined) return (reader) => reader.hex(hashBytes);
    if (BYTE_VECTORS.has(name)) return bytesAsHex;
    const { ss58Prefix } = this.context;
    switch (name) {
      case 'bool':
        return (reader) => reader.u8() !== 0;
      case 'Null':
        return () => null;
      case 'Text':
        return text;
      case 'AccountId32':
      case 'AccountId':
        return (reader) => ss58At(reader.buffer, reader.take(32), 32, ss58Prefix);
      case 'Call':
      case 'RuntimeCall':
        return (reader) => this.context.nestedCall(reader);
      case 'MultiAddress':
        return def.lookupIndex === undefined ? this.delegate(def) : this.multiAddress(def.lookupIndex);
      case 'Era':
      case 'ExtrinsicEra':
        return era;
      default:
        return this.delegate(def);
    }
  }

  /**
   * A MultiAddress as the metadata defines it. Signers and destinations are the
   * `Id` form; the others are read by their declared types too, where polkadot.js
   * guesses from the length of what follows (see test/decodeFuzz.test.ts).
   */
  private multiAddress(index: number): Decoder {
    const { ss58Prefix, registry } = this.context;
    const type = registry.lookup.getSiType(index);
    if (!type.def.isVariant) return this.delegate(registry.lookup.getTypeDef(index));
    const keys: (string | undefined)[] = new Array(256);
    const payloads: Decoder[] = new Array(256);
    for (const variant of type.def.asVariant.variants) {
      if (variant.fields.length !== 1) return this.delegate(registry.lookup.getTypeDef(index));
      keys[variant.index.toNumber()] = stringCamelCase(variant.name.toString());
      payloads[variant.index.toNumber()] = this.decoderOf(variant.fields[0].type.toNumber());
    }
    return (reader) => {
      const tag = reader.u8();
      if (tag === 0) return { id: ss58At(reader.buffer, reader.take(32), 32, ss58Prefix) };
      const key = keys[tag];
      if (key === undefined) throw new DecodeError(`no MultiAddress variant ${tag}`);
      return { [key]: payloads[tag](reader) };
    };
  }

  private compact(def: TypeDef): Decoder {
    const inner = this.resolve(subOf(def));
    const isNumber =
      (inner.info === TypeDefInfo.Plain && (UINT_BYTES[inner.type] !== undefined || INT_BYTES[inner.type] !== undefined)) ||
      inner.info === TypeDefInfo.UInt ||
      inner.info === TypeDefInfo.Int;
    return isNumber ? (reader) => reader.compactString() : this.delegate(def);
  }

  private option(def: TypeDef): Decoder {
    const inner = this.resolve(subOf(def));
    // Option<bool> is one byte: none, true, false.
    if (inner.info === TypeDefInfo.Plain && inner.type === 'bool') {
      return (reader) => {
        const tag = reader.u8();
        if (tag > 2) throw new DecodeError(`Option<bool> byte ${tag}`);
        return tag === 0 ? null : tag === 1;
      };
    }
    const some = this.compile(subOf(def));
    return (reader) => {
      const tag = reader.u8();
      if (tag === 0) return null;
      if (tag !== 1) throw new DecodeError(`Option tag ${tag}`);
      return some(reader);
    };
  }

  private result(def: TypeDef): Decoder {
    const [okDef, errDef] = subsOf(def);
    const ok = this.compile(okDef);
    const err = this.compile(errDef);
    return (reader) => {
      const tag = reader.u8();
      if (tag === 0) return { ok: ok(reader) };
      if (tag === 1) return { err: err(reader) };
      throw new DecodeError(`Result tag ${tag}`);
    };
  }

  private enumeration(def: TypeDef): Decoder {
    const variants = subsOf(def);
    const isBasic = variants.every((variant) => variant.info === TypeDefInfo.Null || variant.type === 'Null');
    if (isBasic) {
      const names: (string | undefined)[] = new Array(256);
      for (const variant of variants) names[variant.index ?? 0] = variant.name;
      return (reader) => {
        const name = names[reader.u8()];
        if (name === undefined) throw new DecodeError(`no variant ${reader.bytes[reader.pos - 1]} in ${def.type}`);
        return name;
      };
    }
    const keys: (string | undefined)[] = new Array(256);
    const payloads: Decoder[] = new Array(256);
    for (const variant of variants) {
      const index = variant.index ?? 0;
      keys[index] = stringCamelCase(variant.name ?? '');
      payloads[index] = variant.info === TypeDefInfo.Null || variant.type === 'Null' ? () => null : this.compile(variant);
    }
    return (reader) => {
      const index = reader.u8();
      const key = keys[index];
      if (key === undefined) throw new DecodeError(`no variant ${index} in ${def.type}`);
      return { [key]: payloads[index](reader) };
    };
  }

  private struct(def: TypeDef): Decoder {
    const fields = subsOf(def).map((field) => ({ name: field.name ?? '', decode: this.compile(field) }));
    return (reader) => {
      const out: { [key: string]: JsonValue } = {};
      for (const field of fields) out[field.name] = field.decode(reader);
      return out;
    };
  }

  tuple(defs: TypeDef[]): Decoder {
    const items = defs.map((item) => this.compile(item));
    return (reader) => items.map((item) => item(reader));
  }

  private vector(itemDef: TypeDef): Decoder {
    return listOf(this.compile(itemDef));
  }

  private fixedVector(itemDef: TypeDef, length: number): Decoder {
    const resolved = this.resolve(itemDef);
    if (resolved.info === TypeDefInfo.Plain && resolved.type === 'u8') return (reader) => reader.hex(length);
    return listOf(this.compile(itemDef), length);
  }

  private map(def: TypeDef): Decoder {
    const [keyDef, valueDef] = subsOf(def);
    const key = this.compile(keyDef);
    const value = this.compile(valueDef);
    return (reader) => {
      const count = reader.compactNumber();
      if (count > reader.remaining + ZERO_SIZED_SLACK) throw new DecodeError(`map of ${count} with ${reader.remaining} bytes left`);
      const out: { [key: string]: JsonValue } = {};
      for (let i = 0; i < count; i++) {
        const plainKey = key(reader);
        out[mapKeyOf(plainKey)] = value(reader);
      }
      return out;
    };
  }

  /** Reads one value with polkadot.js: for types with their own encoding or printing. */
  delegate(def: TypeDef): Decoder {
    const { registry } = this.context;
    const typeName = def.lookupIndex !== undefined ? registry.createLookupType(def.lookupIndex) : def.type;
    return (reader) => {
      const value = registry.createTypeUnsafe(typeName, [reader.bytes.subarray(reader.pos)]);
      reader.take(value.encodedLength);
      return toSidecarJson(value);
    };
  }
}

/**
 * The type a reference points at. A wrapper polkadot.js flattens keeps its own
 * index but names the wrapped type (`Lookup63`): the name is the one to follow.
 */
export function referenceOf(def: TypeDef): number | undefined {
  if (def.info !== TypeDefInfo.Si) return undefined;
  const named = /^Lookup(\d+)$/.exec(def.type);
  return named ? Number(named[1]) : def.lookupIndex;
}

/** A list of `item`s: `length` of them, or as many as the compact count in front says. */
export function listOf(item: Decoder, length?: number): Decoder {
  return (reader) => {
    const count = length ?? reader.compactNumber();
    if (count > reader.remaining + ZERO_SIZED_SLACK) throw new DecodeError(`list of ${count} with ${reader.remaining} bytes left`);
    const out: JsonValue[] = new Array(count);
    for (let i = 0; i < count; i++) out[i] = item(reader);
    return out;
  };
}

function subOf(def: TypeDef): TypeDef {
  if (!def.sub || Array.isArray(def.sub)) throw new DecodeError(`${def.type} has no single inner type`);
  return def.sub;
}

function subsOf(def: TypeDef): TypeDef[] {
  if (!def.sub) return [];
  return Array.isArray(def.sub) ? def.sub : [def.sub];
}

function uintDecoder(bytes: number): Decoder {
  return (reader) => reader.uintString(bytes);
}

function intDecoder(bytes: number): Decoder {
  return (reader) => reader.intString(bytes);
}

function bytesAsHex(reader: ByteReader): string {
  return reader.hex(reader.compactNumber());
}

function text(reader: ByteReader): string {
  const length = reader.compactNumber();
  const at = reader.take(length);
  return reader.buffer.toString('utf8', at, at + length);
}

/** An immortal transaction's era, as polkadot.js prints it. */
export const IMMORTAL_ERA: JsonValue = { immortalEra: '0x00' };

/** A transaction's era as polkadot.js prints it: the immortal byte, or period and phase. */
function era(reader: ByteReader): JsonValue {
  const first = reader.u8();
  if (first === 0) return IMMORTAL_ERA;
  const encoded = first + (reader.u8() << 8);
  const period = 2 << (encoded % 16);
  const quantizeFactor = Math.max(period >> 12, 1);
  const phase = (encoded >> 4) * quantizeFactor;
  if (period < 4 || phase >= period) throw new DecodeError(`invalid mortal era ${encoded}`);
  return { mortalEra: [String(period), String(phase)] };
}
