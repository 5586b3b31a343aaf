// Differential fuzz of the two readings of a block: for every call and every
// event of the devnet's runtime (metadata as the service loads it from the
// node), seeded random values are encoded from the metadata's types and read
// by the compiled codecs and by polkadot.js; the JSON must be the same.
import type { GenericCall, TypeRegistry } from '@polkadot/types';
import { TypeDefInfo, type TypeDef } from '@polkadot/types-create/types';
import { compactToU8a, u8aConcat } from '@polkadot/util';

import type { Devnet } from '../devnet/chain';
import { callToJson, toSidecarJson } from '../src/decode/codecJson';
import { referenceOf } from '../src/decode/compile';
import { ByteReader } from '../src/decode/reader';
import { RuntimeCodecs } from '../src/decode/runtimeCodecs';
import { NodeClient } from '../src/rpc/nodeClient';
import { RuntimeRegistry, type Runtime } from '../src/services/runtimes';
import { startDevnet } from './support/devnet';

const SEEDS = [1, 2, 3, 4, 5, 6];
/** Past this nesting a sample is drawn again: recursive types (calls in calls, XCM) must end. */
const MAX_DEPTH = 10;

let devnet: Devnet;
let node: NodeClient;
let runtime: Runtime;
let registry: TypeRegistry;
let codecs: RuntimeCodecs;

beforeAll(async () => {
  ({ devnet } = await startDevnet());
  node = new NodeClient({ url: devnet.wsUrl, timeoutMs: 30_000 });
  await node.ready();
  const head = await node.getFinalizedHead();
  runtime = await new RuntimeRegistry(node).get(await node.getRuntimeVersion(head), head);
  registry = runtime.registry;
  if (!(runtime.codecs instanceof RuntimeCodecs)) throw new Error(`no compiled codecs: ${runtime.codecs.message}`);
  codecs = runtime.codecs;
}, 120_000);

afterAll(async () => {
  await node?.disconnect();
  await devnet?.close();
});

class TooDeep extends Error {}

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Encodes random valid values of the runtime's types. */
class ValueGenerator {
  private readonly random: () => number;
  constructor(seed: number) {
    this.random = prng(seed);
  }

  int(below: number): number {
    return Math.floor(this.random() * below);
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }

  /** An unsigned integer of `width` bytes: small, large or the maximum, as real data has them. */
  uint(width: number): Uint8Array {
    const kind = this.int(4);
    if (kind === 0) return new Uint8Array(width);
    if (kind === 1) return new Uint8Array(width).fill(255);
    const out = new Uint8Array(width);
    out.set(this.bytes(kind === 2 ? Math.min(width, 2) : width));
    return out;
  }

  compact(width: number): Uint8Array {
    const bytes = this.uint(width);
    let value = 0n;
    for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]);
    return compactToU8a(value);
  }

  value(def: TypeDef, depth: number): Uint8Array {
    if (depth > MAX_DEPTH) throw new TooDeep();
    switch (def.info) {
      case TypeDefInfo.Si:
        return this.value(registry.lookup.getTypeDef(referenceOf(def)!), depth);
      case TypeDefInfo.Null:
        return new Uint8Array();
      case TypeDefInfo.Plain:
        return this.plain(def, depth);
      case TypeDefInfo.Compact:
        return this.compact(widthOf(resolve(def.sub as TypeDef)));
      case TypeDefInfo.Option: {
        const inner = resolve(def.sub as TypeDef);
        if (inner.info === TypeDefInfo.Plain && inner.type === 'bool') return new Uint8Array([this.int(3)]);
        return this.int(2) === 0 ? new Uint8Array([0]) : u8aConcat([1], this.value(def.sub as TypeDef, depth + 1));
      }
      case TypeDefInfo.Result: {
        const [ok, err] = def.sub as TypeDef[];
        const tag = this.int(2);
        return u8aConcat([tag], this.value(tag === 0 ? ok : err, depth + 1));
      }
      case TypeDefInfo.Enum: {
        const variants = (def.sub as TypeDef[]).filter((variant) => !variant.name?.startsWith('__Unused'));
        const variant = variants[this.int(variants.length)];
        return u8aConcat([variant.index ?? 0], variant.type === 'Null' ? new Uint8Array() : this.value(variant, depth + 1));
      }
      case TypeDefInfo.Struct:
      case TypeDefInfo.Tuple:
        return u8aConcat(...((def.sub as TypeDef[] | undefined) ?? []).map((field) => this.value(field, depth + 1)));
      case TypeDefInfo.Vec:
      case TypeDefInfo.BTreeSet: {
        // Sets hold at most one item: real ones are sorted by the key's order, which bytes do not give.
        const count = depth >= MAX_DEPTH - 2 ? 0 : this.int(def.info === TypeDefInfo.Vec ? 4 : 2);
        const items = Array.from({ length: count }, () => this.value(def.sub as TypeDef, depth + 1));
        return u8aConcat(compactToU8a(count), ...items);
      }
      case TypeDefInfo.BTreeMap: {
        const [key, value] = def.sub as TypeDef[];
        return this.int(2) === 0 ? new Uint8Array([0]) : u8aConcat(compactToU8a(1), this.value(key, depth + 1), this.value(value, depth + 1));
      }
      case TypeDefInfo.VecFixed: {
        const inner = resolve(def.sub as TypeDef);
        if (inner.info === TypeDefInfo.Plain && inner.type === 'u8') return this.bytes(def.length ?? 0);
        return u8aConcat(...Array.from({ length: def.length ?? 0 }, () => this.value(def.sub as TypeDef, depth + 1)));
      }
      default:
        return defaultOf(def);
    }
  }

  private plain(def: TypeDef, depth: number): Uint8Array {
    const width = widthOf(def);
    if (width > 0) return this.uint(width);
    switch (def.type) {
      case 'bool':
        return new Uint8Array([this.int(2)]);
      case 'Vote':
        // Aye in the top bit, a conviction (0-6) below.
        return new Uint8Array([(this.int(2) << 7) | this.int(7)]);
      case 'H160':
        return this.bytes(20);
      case 'H256':
      case 'AccountId32':
        // A few accounts again and again, as blocks have them.
        return this.int(2) === 0 ? this.bytes(32) : new Uint8Array(32).fill(this.int(3));
      case 'H512':
        return this.bytes(64);
      case 'Bytes': {
        const length = this.int(40);
        return u8aConcat(compactToU8a(length), this.bytes(length));
      }
      case 'Text': {
        const text = Array.from({ length: this.int(20) }, () => String.fromCharCode(32 + this.int(95))).join('');
        return u8aConcat(compactToU8a(text.length), Buffer.from(text, 'latin1'));
      }
      case 'MultiAddress': {
        // Id and Address32. Raw and Address20 are read differently on purpose (their own test
        // below); Index is never used (the runtime's AccountIndex is `()`).
        return this.int(2) === 0 ? u8aConcat([0], this.bytes(32)) : u8aConcat([3], this.bytes(32));
      }
      case 'Era': {
        if (this.int(2) === 0) return new Uint8Array([0]);
        const periodLog = 2 + this.int(15);
        const period = 2 ** periodLog;
        const quantize = Math.max(period >> 12, 1);
        const phase = Math.floor(this.int(period) / quantize) * quantize;
        const encoded = Math.min(15, Math.max(1, periodLog - 1)) | ((phase / quantize) << 4);
        return new Uint8Array([encoded & 0xff, encoded >> 8]);
      }
      case 'Call':
        return this.call(depth + 1).bytes;
      default:
        return defaultOf(def);
    }
  }

  /** A random call of the runtime, with its arguments. */
  call(depth: number, pick?: { pallet: number; index: number; fields: number[] }): { bytes: Uint8Array } {
    const target = pick ?? CALLS[this.int(CALLS.length)];
    const args = target.fields.map((type) => this.value(registry.lookup.getTypeDef(type), depth + 1));
    return { bytes: u8aConcat([target.pallet, target.index], ...args) };
  }
}

function resolve(def: TypeDef): TypeDef {
  let resolved = def;
  while (resolved.info === TypeDefInfo.Si) resolved = registry.lookup.getTypeDef(referenceOf(resolved)!);
  return resolved;
}

const WIDTHS: Record<string, number> = {
  u8: 1, u16: 2, u32: 4, u64: 8, u128: 16, u256: 32, i8: 1, i16: 2, i32: 4, i64: 8, i128: 16,
  U256: 32, Percent: 1, PerU16: 2, Permill: 4, Perbill: 4, Perquintill: 8,
};

function widthOf(def: TypeDef): number {
  return def.info === TypeDefInfo.Plain ? (WIDTHS[def.type] ?? 0) : 0;
}

/** The type's default value as polkadot.js encodes it: valid bytes for types the generator does not shape itself. */
function defaultOf(def: TypeDef): Uint8Array {
  const name = def.lookupIndex !== undefined ? registry.createLookupType(def.lookupIndex) : def.type;
  return registry.createTypeUnsafe(name, []).toU8a();
}

let CALLS: { pallet: number; index: number; fields: number[]; name: string }[] = [];
let EVENTS: { pallet: number; index: number; fields: number[]; name: string }[] = [];

function variantsOf(kind: 'calls' | 'events') {
  return registry.metadata.pallets.flatMap((pallet) => {
    const list = pallet[kind];
    if (list.isNone) return [];
    return registry.lookup.getSiType(list.unwrap().type).def.asVariant.variants.map((variant) => ({
      pallet: pallet.index.toNumber(),
      index: variant.index.toNumber(),
      fields: variant.fields.map((field) => field.type.toNumber()),
      name: `${pallet.name.toString()}.${variant.name.toString()}`,
    }));
  });
}

/** The JSON of a reading, or its failure as text (a difference like any other). */
function attempt(read: () => unknown): string {
  try {
    return JSON.stringify(read());
  } catch (error) {
    return `threw ${String(error)}`;
  }
}

/** Draws until a sample fits MAX_DEPTH. */
function sample(make: () => Uint8Array): Uint8Array | undefined {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      return make();
    } catch (error) {
      if (!(error instanceof TooDeep)) throw error;
    }
  }
  return undefined;
}

it('reads every call of the runtime as polkadot.js does, at the top of an extrinsic and nested', () => {
  CALLS = variantsOf('calls');
  expect(CALLS.length).toBeGreaterThan(400);
  const differences: string[] = [];
  let compared = 0;
  for (const seed of SEEDS) {
    const generator = new ValueGenerator(seed);
    for (const call of CALLS) {
      const bytes = sample(() => generator.call(0, call).bytes);
      if (!bytes) continue;
      const reference = registry.createType('Call', bytes) as unknown as GenericCall;
      const expectedTop = JSON.stringify(callToJson(reference, registry));
      const expectedNested = JSON.stringify(toSidecarJson(reference));
      const actualTop = attempt(() => {
        const top = codecs.topCall(new ByteReader(bytes));
        return { method: { pallet: top.pallet, method: top.method }, args: top.args };
      });
      const actualNested = attempt(() => codecs.nestedCall(new ByteReader(bytes)));
      compared++;
      if (actualTop !== expectedTop) differences.push(`${call.name} (seed ${seed}) top:\n  ${expectedTop}\n  ${actualTop}`);
      if (actualNested !== expectedNested) differences.push(`${call.name} (seed ${seed}) nested:\n  ${expectedNested}\n  ${actualNested}`);
    }
  }
  expect(differences.slice(0, 8)).toEqual([]);
  expect(compared).toBeGreaterThan(CALLS.length * SEEDS.length * 0.9);
});

it('reads every event of the runtime as polkadot.js does', () => {
  EVENTS = variantsOf('events');
  expect(EVENTS.length).toBeGreaterThan(400);
  const differences: string[] = [];
  let compared = 0;
  for (const seed of SEEDS) {
    const generator = new ValueGenerator(seed);
    for (const event of EVENTS) {
      const data = sample(() => u8aConcat(...event.fields.map((type) => generator.value(registry.lookup.getTypeDef(type), 1))));
      if (!data) continue;
      const eventBytes = u8aConcat([event.pallet, event.index], data);
      const reference = registry.createType('Event', eventBytes);
      const expected = JSON.stringify(toSidecarJson(reference.data));
      // One record: ApplyExtrinsic(7), the event, no topics.
      const record = u8aConcat(compactToU8a(1), [0, 7, 0, 0, 0], eventBytes, [0]);
      const actual = attempt(() => {
        const [decoded] = codecs.eventRecords(record);
        return [`${decoded.pallet}.${decoded.method}`, decoded.data];
      });
      compared++;
      const wanted = JSON.stringify([`${reference.section}.${reference.method}`, JSON.parse(expected)]);
      if (actual !== wanted) differences.push(`${event.name} (seed ${seed}):\n  ${wanted}\n  ${actual}`);
    }
  }
  expect(differences.slice(0, 8)).toEqual([]);
  expect(compared).toBeGreaterThan(EVENTS.length * SEEDS.length * 0.9);
});

// The readings that differ on purpose. polkadot.js decodes a MultiAddress by its
// own definition and guesses from the bytes that follow: `Raw` is taken for an
// account index, and an `Address20` followed by enough bytes for an account
// becomes an `Id`; either way the arguments after it are misread too. fastcar
// reads the variant by the runtime's metadata: the address as encoded, and the
// arguments after it where they are. (Signers and almost every destination are
// `Id`, read the same by both.)
it('reads MultiAddress::Raw and ::Address20 by the metadata, where polkadot.js misreads the call', () => {
  const transfer = registry.findMetaCall(new Uint8Array([10, 3]));
  expect(`${transfer.section}.${transfer.method}`).toBe('balances.transferKeepAlive');
  const raw = u8aConcat([10, 3], [2], compactToU8a(4), [1, 2, 3, 4], compactToU8a(12345));
  expect(codecs.topCall(new ByteReader(raw)).args).toEqual({ dest: { raw: '0x01020304' }, value: '12345' });
  const rawReference = callToJson(registry.createType('Call', raw) as unknown as GenericCall, registry).args as { dest: object; value: string };
  expect(rawReference.dest).not.toHaveProperty('raw');
  expect(rawReference.value).not.toBe('12345');

  // proxy.proxyAnnounced(delegate: Address20, real: Address20, force_proxy_type: None, call: uniques.freeze(7, 9))
  const proxyAnnounced = CALLS.find((call) => call.name === 'Proxy.proxy_announced')!;
  const freeze = CALLS.find((call) => call.name === 'Uniques.freeze')!;
  const delegate = new Uint8Array(20).fill(0xb2);
  const real = new Uint8Array(20).fill(0xef);
  const announced = u8aConcat(
    [proxyAnnounced.pallet, proxyAnnounced.index],
    [4], delegate, [4], real, [0],
    [freeze.pallet, freeze.index], [7, 0, 0, 0], [9, 0, 0, 0],
  );
  const ours = codecs.topCall(new ByteReader(announced)).args;
  expect(ours).toMatchObject({
    delegate: { address20: `0x${'b2'.repeat(20)}` },
    real: { address20: `0x${'ef'.repeat(20)}` },
    force_proxy_type: null,
    call: { method: { pallet: 'uniques', method: 'freeze' }, args: { collection: '7', item: '9' } },
  });
  const reference = callToJson(registry.createType('Call', announced) as unknown as GenericCall, registry).args as { real: object };
  expect(reference.real).not.toHaveProperty('address20');
});
