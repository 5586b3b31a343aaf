// Turns decoded polkadot.js values into the JSON that substrate-api-sidecar
// clients already parse: integers as decimal strings, structs by field,
// enums as `{ variantName: value }` (or the bare name when they carry no data).
import { BTreeSet, Compact, Enum, GenericAccountId, Option, Set as CodecSet, Struct } from '@polkadot/types';
import { AbstractArray, AbstractInt, CodecMap, Json as JsonCodec } from '@polkadot/types-codec';
import type { Codec } from '@polkadot/types-codec/types';
import { isObject, stringCamelCase } from '@polkadot/util';
import BN from 'bn.js';
import { LRUCache } from 'lru-cache';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue | undefined };

function isCodec(value: unknown): value is Codec {
  return isObject(value) && typeof (value as Partial<Codec>).toU8a === 'function' && 'registry' in value;
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
  return isObject(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

// An ss58 address costs a blake2 checksum and a base58 encoding; a block names the
// same accounts again and again (signers, transfer events, fee events).
const addresses = new LRUCache<string, string>({ max: 50_000 });

/** The account's ss58 address in its registry's format, remembered by prefix and bytes. */
function ss58Of(account: GenericAccountId): string {
  const bytes = account.toU8a();
  const key = `${account.registry.chainSS58 ?? 42}:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1')}`;
  let address = addresses.get(key);
  if (address === undefined) {
    address = account.toString();
    addresses.set(key, address);
  }
  return address;
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
    out[typeof plainKey === 'object' ? JSON.stringify(plainKey) : String(plainKey)] = toSidecarJson(value);
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
  if (data instanceof BN || typeof data === 'number') return data.toString(10);
  if (Array.isArray(data)) return data.map((element) => toSidecarJson(element));
  if (hasToJson(data)) return toSidecarJson(data.toJSON());
  if (isObject(data)) {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, value] of Object.entries(data)) out[key] = toSidecarJson(value);
    return out;
  }
  return data as JsonValue;
}
