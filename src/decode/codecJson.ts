// Turns decoded polkadot.js values into the JSON that substrate-api-sidecar
// clients already parse: integers as decimal strings, structs by field,
// enums as `{ variantName: value }` (or the bare name when they carry no data).
import { BTreeSet, Compact, Enum, GenericAccountId, GenericCall, Option, Set as CodecSet, Struct, type TypeRegistry } from '@polkadot/types';
import { AbstractArray, AbstractInt, CodecMap, Json as JsonCodec } from '@polkadot/types-codec';
import type { Codec } from '@polkadot/types-codec/types';
import { isObject, stringCamelCase } from '@polkadot/util';
import BN from 'bn.js';

import { mapKeyOf, type JsonValue } from './json';
import { ss58, ss58PrefixOf } from './ss58';

export type { JsonValue };

function isCodec(value: unknown): value is Codec {
  return isObject(value) && typeof (value as Partial<Codec>).toU8a === 'function' && 'registry' in value;
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
  return isObject(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** The account's ss58 address in its registry's format. */
function ss58Of(account: GenericAccountId): string {
  return ss58(account.toU8a(), ss58PrefixOf(account.registry));
}

function codecToJson(value: Codec): JsonValue {
  if (value instanceof GenericAccountId) return ss58Of(value);
  if (value instanceof Option) return value.isSome ? toSidecarJson(value.unwrap()) : null;
  if (value instanceof Compact) return toSidecarJson(value.unwrap());
  if (value instanceof Struct) {
    const out: { [key: string]: JsonValue } = {};
    for (const key of value.defKeys) {
      const field = value.get(key);
      if (field) out[key] = toSidecarJson(field);
    }
    return out;
  }
  if (value instanceof JsonCodec) {
    const out: { [key: string]: JsonValue } = {};
    value.forEach((field, key) => {
      out[key] = toSidecarJson(field);
    });
    return out;
  }
  if (value instanceof Enum) {
    return value.isBasic ? (value.toJSON() as JsonValue) : { [stringCamelCase(value.type)]: toSidecarJson(value.value) };
  }
  if (value instanceof BTreeSet) return [...value].map((element) => toSidecarJson(element));
  if (value instanceof CodecSet) return value.strings;
  if (value instanceof CodecMap) return mapToJson(value);
  if (value instanceof AbstractArray) return value.map((element) => toSidecarJson(element));
  if (value instanceof AbstractInt) return value.toString(10);
  return value.toJSON() as JsonValue;
}

function mapToJson(map: Map<unknown, unknown>): JsonValue {
  const out: { [key: string]: JsonValue } = {};
  map.forEach((value, key) => {
    const plainKey = toSidecarJson(key);
    out[mapKeyOf(plainKey)] = toSidecarJson(value);
  });
  return out;
}

/** Plain values pass through; numbers (JS or BN) become decimal strings, as sidecar sends them. */
export function toSidecarJson(data: unknown): JsonValue {
  if (data === undefined || data === null || data === '' || data === false || Number.isNaN(data)) {
    return data as JsonValue;
  }
  if (isCodec(data)) return codecToJson(data);
  if (data instanceof Set) return [...data].map((element) => toSidecarJson(element));
  if (data instanceof Map) return mapToJson(data);
  if (data instanceof BN || typeof data === 'number' || typeof data === 'bigint') return data.toString(10);
  if (Array.isArray(data)) return data.map((element) => toSidecarJson(element));
  if (hasToJson(data)) return toSidecarJson(data.toJSON());
  if (isObject(data)) {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, value] of Object.entries(data)) out[key] = toSidecarJson(value);
    return out;
  }
  return data as JsonValue;
}

/** A call as sidecar prints it at the top of an extrinsic: `{ method: { pallet, method }, args }`. */
export function callToJson(call: GenericCall, registry: TypeRegistry): { method: { pallet: string; method: string }; args: JsonValue } {
  const args: { [key: string]: JsonValue } = {};
  const argStruct = call.get('args') as (Codec & { defKeys?: string[]; get(key: string): Codec | undefined }) | undefined;
  for (const name of argStruct?.defKeys ?? []) {
    const value = argStruct?.get(name);
    args[name] = argToJson(name, value, registry);
  }
  return { method: { pallet: call.section, method: call.method }, args };
}

/** One call argument: calls in it printed as at the top, opaque bytes named `call` as the call they hold. */
export function argToJson(name: string, value: Codec | undefined, registry: TypeRegistry): JsonValue {
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
