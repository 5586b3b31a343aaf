// A block header as the node sends it (JSON with hex fields) read straight into
// sidecar's fields: its hash, its digest logs, and which session validator wrote
// it. The standard Substrate header only; anything else (an unknown digest item,
// a consensus engine whose author is not an index) is declined, and polkadot.js
// reads that header instead.
import { compactToU8a } from '@polkadot/util';
import { blake2AsU8a } from '@polkadot/util-crypto';

import { bytesOfHex, hexOfBytes } from './hex';
import type { JsonValue } from './json';
import { ByteReader } from './reader';
import { ss58At } from './ss58';

export interface RpcHeaderJson {
  parentHash: string;
  number: string;
  stateRoot: string;
  extrinsicsRoot: string;
  digest: { logs: string[] };
}

/** The header fields of sidecar's block JSON, whoever read them. */
export interface HeaderFields {
  number: string;
  parentHash: string;
  stateRoot: string;
  extrinsicsRoot: string;
  authorId?: JsonValue;
  logs: JsonValue[];
}

interface EngineItem {
  kind: 'PreRuntime' | 'Consensus' | 'Seal';
  engine: Uint8Array;
  data: Uint8Array;
}

/** A digest item as a block answer lists it. */
export type DigestLog = { type: string; index: string; value: JsonValue };

export interface HeaderReading {
  hash: string;
  number: number;
  fields: Omit<HeaderFields, 'authorId' | 'logs'> & { logs: DigestLog[] };
  engineItems: EngineItem[];
}

// DigestItem variants by index, as polkadot.js names them; the ones read here.
const OTHER = 0;
const CONSENSUS = 4;
const SEAL = 5;
const PRE_RUNTIME = 6;
const RUNTIME_ENVIRONMENT_UPDATED = 8;
const ENGINE_ITEMS: Record<number, EngineItem['kind']> = { [CONSENSUS]: 'Consensus', [SEAL]: 'Seal', [PRE_RUNTIME]: 'PreRuntime' };

const HASH_HEX = /^0x[0-9a-fA-F]{64}$/;

function take(reader: ByteReader, length: number): Uint8Array {
  const start = reader.take(length);
  return reader.bytes.subarray(start, start + length);
}

/** The header read, or undefined when it is not one this reading knows all of. */
export function readHeader(header: RpcHeaderJson): HeaderReading | undefined {
  const { parentHash, stateRoot, extrinsicsRoot } = header;
  if (!HASH_HEX.test(parentHash) || !HASH_HEX.test(stateRoot) || !HASH_HEX.test(extrinsicsRoot)) return undefined;
  const number = Number.parseInt(header.number, 16);
  if (!Number.isSafeInteger(number) || number < 0 || number > 0xffffffff) return undefined;
  const logs: DigestLog[] = [];
  const engineItems: EngineItem[] = [];
  const encodedLogs: Uint8Array[] = [];
  for (const logHex of header.digest.logs) {
    const bytes = bytesOfHex(logHex);
    encodedLogs.push(bytes);
    const reader = new ByteReader(bytes);
    try {
      const index = reader.u8();
      if (index === OTHER) {
        logs.push({ type: 'Other', index: String(index), value: hexOfBytes(take(reader, reader.compactNumber())) });
      } else if (index === RUNTIME_ENVIRONMENT_UPDATED) {
        logs.push({ type: 'RuntimeEnvironmentUpdated', index: String(index), value: null });
      } else if (ENGINE_ITEMS[index]) {
        const engine = take(reader, 4);
        const data = take(reader, reader.compactNumber());
        logs.push({ type: ENGINE_ITEMS[index], index: String(index), value: [hexOfBytes(engine), hexOfBytes(data)] });
        engineItems.push({ kind: ENGINE_ITEMS[index], engine, data });
      } else {
        return undefined;
      }
      if (reader.remaining !== 0) return undefined;
    } catch {
      return undefined;
    }
  }
  const parts = [
    bytesOfHex(parentHash),
    compactToU8a(number),
    bytesOfHex(stateRoot),
    bytesOfHex(extrinsicsRoot),
    compactToU8a(encodedLogs.length),
    ...encodedLogs,
  ];
  const hash = hexOfBytes(blake2AsU8a(Buffer.concat(parts), 256));
  return {
    hash,
    number,
    fields: {
      number: String(number),
      parentHash: parentHash.toLowerCase(),
      stateRoot: stateRoot.toLowerCase(),
      extrinsicsRoot: extrinsicsRoot.toLowerCase(),
      logs,
    },
    engineItems,
  };
}

/** `Session.Validators` storage (a SCALE Vec<AccountId32>), or undefined if it is not that. */
export function readValidators(bytes: Uint8Array): Buffer | undefined {
  try {
    const reader = new ByteReader(bytes);
    const count = reader.compactNumber();
    const accounts = take(reader, count * 32);
    return reader.remaining === 0 ? Buffer.from(accounts) : undefined;
  } catch {
    return undefined;
  }
}

const AURA = 'aura';
const BABE = 'BABE';
const AUTHOR_IS_DATA = new Set(['pow_', 'nmbs']);

/**
 * What this reading makes of a header's author: the validator it names, none, or
 * declined (polkadot.js must decide: an engine whose data is the author itself, or
 * data this reading does not know).
 */
export type AuthorReading = { kind: 'author'; address: string } | { kind: 'none' } | { kind: 'declined' };

type ItemAuthor = { kind: 'index'; index: number } | { kind: 'none' } | { kind: 'declined' };
const NONE = { kind: 'none' } as const;
const DECLINED = { kind: 'declined' } as const;

/**
 * Which validator an engine item names, the way polkadot.js reads it: aura's slot
 * modulo the validator count, babe's authority index. Engines whose data is the
 * author itself (PoW, Nimbus) are declined: polkadot.js prints those.
 */
function authorOf(item: EngineItem, validatorCount: number): ItemAuthor {
  const engine = Buffer.from(item.engine).toString('latin1');
  if (AUTHOR_IS_DATA.has(engine)) return DECLINED;
  if (validatorCount === 0) return NONE;
  if (engine === AURA) {
    if (item.data.length < 8) return DECLINED;
    const slot = Buffer.from(item.data.buffer, item.data.byteOffset, 8).readBigUInt64LE();
    return { kind: 'index', index: Number(slot % BigInt(validatorCount)) };
  }
  if (engine === BABE) {
    // Four variants, each led by a u32 authority index; any other first byte is not a pre-digest.
    if (item.data.length < 5 || item.data[0] > 3) return DECLINED;
    return { kind: 'index', index: Buffer.from(item.data.buffer, item.data.byteOffset + 1, 4).readUInt32LE() };
  }
  return NONE;
}

/**
 * The block's author as an ss58 address. Order as polkadot.js: every pre-runtime
 * item, then the first consensus item, then the first seal.
 */
export function authorId(reading: HeaderReading, validators: Buffer, prefix: number): AuthorReading {
  const count = validators.length / 32;
  const candidates = [
    ...reading.engineItems.filter((item) => item.kind === 'PreRuntime'),
    ...reading.engineItems.filter((item) => item.kind === 'Consensus').slice(0, 1),
    ...reading.engineItems.filter((item) => item.kind === 'Seal').slice(0, 1),
  ];
  for (const item of candidates) {
    const outcome = authorOf(item, count);
    if (outcome.kind === 'declined') return outcome;
    if (outcome.kind === 'index' && outcome.index < count) return { kind: 'author', address: ss58At(validators, outcome.index * 32, 32, prefix) };
  }
  return NONE;
}
