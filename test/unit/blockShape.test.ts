// Shaping a decoded block into sidecar's JSON, with no node: recorded Polkadot
// blocks (metadata v12 and v14) against the answers sidecar recorded live.
import { UnsupportedFormat, type RuntimeCodecs } from '../../src/decode/runtimeCodecs';
import type { Header } from '@polkadot/types/interfaces';

import { authorId, readHeader, readValidators, type HeaderFields, type RpcHeaderJson } from '../../src/decode/header';
import type { DecodedBody } from '../../src/decode/decodedBody';
import { decodeWithCodecs, headerFieldsOf } from '../../src/decode/polkadotReference';
import { assembleBlock } from '../../src/services/blocks/blockShape';
import { decodeBody, decodeCounters } from '../../src/services/blocks/bodyDecoding';
import { resolveFees } from '../../src/services/fees';
import { FeeDetailsKnowledge } from '../../src/services/feeRules';
import { decodeRecorded } from '../../harness/recordedBlocks';
import { loadPolkadotRecording } from '../../harness/recordedNode';

const recording = loadPolkadotRecording();
const query = { eventDocs: false, extrinsicDocs: false, noFees: false, decodedXcmMsgs: false };

/** A header as a node sends it over JSON-RPC. */
function rpcHeaderOf(header: Header): RpcHeaderJson {
  return {
    parentHash: header.parentHash.toHex(),
    number: `0x${header.number.unwrap().toString(16)}`,
    stateRoot: header.stateRoot.toHex(),
    extrinsicsRoot: header.extrinsicsRoot.toHex(),
    digest: { logs: header.digest.logs.map((log) => log.toHex()) },
  };
}

/** The header's fields as the service's compiled reading gives them (it must not decline recorded Polkadot headers). */
async function compiledHeaderOf(number: number): Promise<HeaderFields & { hash: string }> {
  const { runtime, block, validators } = await decodeRecorded(recording, number);
  const reading = readHeader(rpcHeaderOf(block.header));
  if (!reading) throw new Error(`header of ${number} declined`);
  const accounts = readValidators(runtime.registry.createType('Vec<AccountId>', validators).toU8a());
  if (!accounts) throw new Error(`validators of ${number} declined`);
  const author = authorId(reading, accounts, runtime.registry.chainSS58 ?? 42);
  if (author.kind === 'declined') throw new Error(`author of ${number} declined`);
  const { logs, ...rest } = reading.fields;
  return { ...rest, authorId: author.kind === 'author' ? author.address : undefined, logs, hash: reading.hash };
}

/** A recorded block read the way the service reads it: the compiled codecs where they apply, else polkadot.js. */
async function shapeRecorded(number: number, hash: string, reading: 'compiled' | 'reference') {
  const decoded = await decodeRecorded(recording, number);
  const { runtime, block, events, validators } = decoded;
  const extrinsicsHex = block.extrinsics.map((extrinsic) => extrinsic.toHex());
  const eventsBytes = runtime.registry.createType('Vec<EventRecord>', events).toU8a();
  const body: DecodedBody =
    reading === 'compiled'
      ? await decodeBody(runtime, extrinsicsHex, eventsBytes, () => {
          throw new Error('the compiled reading declined the block');
        })
      : decodeWithCodecs(block, events);
  const header = reading === 'compiled' ? await compiledHeaderOf(number) : headerFieldsOf(block.header, validators);
  return { ...decoded, ...assembleBlock(hash, header, body, query) };
}

// Every block with sidecar's recorded answer. Metadata v14 ones in both readings; before v14 only polkadot.js reads them.
const V14_BLOCKS = [5705186, 6800002, 7300000];
const ALL_BLOCKS = [1603025, 1662525, 2392625, 3592619, 3892620, 4092619, 4392619, 4947391, ...V14_BLOCKS];

describe.each(
  ALL_BLOCKS.flatMap((number) =>
    (V14_BLOCKS.includes(number) ? (['reference', 'compiled'] as const) : (['reference'] as const)).map((reading) => [number, reading] as const),
  ),
)('block %i, %s reading', (number, reading) => {
  const expected = recording.recorded[String(number)] as { hash: string; finalized?: boolean; extrinsics: { info: unknown }[] };

  it('shapes to sidecar JSON, every field but the fees', async () => {
    const { body } = await shapeRecorded(number, expected.hash, reading);
    const { finalized: _finalized, ...withoutTag } = expected;
    const withoutFees = { ...withoutTag, extrinsics: expected.extrinsics.map((x) => ({ ...x, info: {} })) };
    expect(JSON.parse(JSON.stringify(body))).toEqual(withoutFees);
  });

  it("fills the fees as sidecar's rules give them", async () => {
    const { runtime, block, node, body, facts } = await shapeRecorded(number, expected.hash, reading);
    await resolveFees(body.extrinsics, facts, {
      node,
      registry: runtime.registry,
      parentHash: block.header.parentHash.toHex(),
      specName: runtime.specName,
      specVersion: runtime.specVersion,
      hasTransactionPaymentApi: runtime.hasTransactionPaymentApi,
      feeDetails: new FeeDetailsKnowledge(),
      noFees: false,
    });
    expect(JSON.parse(JSON.stringify(body.extrinsics.map((x) => x.info)))).toEqual(expected.extrinsics.map((x) => x.info));
  });
});

it.each([18468942, 19772575, 21157800, 22887036])('reads block %i (no recorded answer) the same both ways', async (number) => {
  const hash = recording.blocks.find((b) => b.number === number)!.hash;
  const compiled = await shapeRecorded(number, hash, 'compiled');
  const reference = await shapeRecorded(number, hash, 'reference');
  expect(JSON.stringify(compiled.body)).toEqual(JSON.stringify(reference.body));
  expect(compiled.facts.map((fact) => fact.completion)).toEqual(reference.facts.map((fact) => fact.completion));
});

describe('headers read without polkadot.js', () => {
  it.each([...ALL_BLOCKS, 18468942, 19772575, 21157800, 22887036])('block %i: same hash, fields and author as polkadot.js', async (number) => {
    const { block, validators } = await decodeRecorded(recording, number);
    const { hash, ...fields } = await compiledHeaderOf(number);
    expect(hash).toBe(block.header.hash.toHex());
    expect(JSON.stringify(fields)).toBe(JSON.stringify(headerFieldsOf(block.header, validators)));
  });

  it('declines digest items it does not read, so polkadot.js reads that header', async () => {
    const { block } = await decodeRecorded(recording, 7300000);
    const rpc = rpcHeaderOf(block.header);
    // ChangesTrieRoot (index 2): a hash; long gone from Substrate, still in old blocks.
    const withOldItem = { ...rpc, digest: { logs: [...rpc.digest.logs, `0x02${'11'.repeat(32)}`] } };
    expect(readHeader(withOldItem)).toBeUndefined();
    expect(readHeader(rpc)).toBeDefined();
  });

  it('declines validators that are not 32-byte accounts', () => {
    expect(readValidators(Uint8Array.of(4, ...new Uint8Array(20)))).toBeUndefined();
    expect(readValidators(Uint8Array.of(4, ...new Uint8Array(32)))?.length).toBe(32);
  });
});

it('reads a block with polkadot.js when the compiled reading fails on it, and counts that', async () => {
  const { runtime, block, events } = await decodeRecorded(recording, 7300000);
  const broken = Object.create(runtime.codecs as RuntimeCodecs) as RuntimeCodecs;
  broken.extrinsic = () => {
    throw new TypeError('a fault of its own');
  };
  const before = { ...decodeCounters };
  const extrinsicsHex = block.extrinsics.map((extrinsic) => extrinsic.toHex());
  const eventsBytes = runtime.registry.createType('Vec<EventRecord>', events).toU8a();
  const body = await decodeBody({ ...runtime, codecs: broken }, extrinsicsHex, eventsBytes, () => ({ block, events }));
  expect(decodeCounters.fallback).toBe(before.fallback + 1);
  expect(decodeCounters.faults).toBe(before.faults + 1);
  expect(JSON.stringify(body.extrinsics)).toBe(JSON.stringify(decodeWithCodecs(block, events).extrinsics));
});

it('reads the extrinsics while the events come; failing to get them fails the body, not the reading', async () => {
  const { runtime, block, events } = await decodeRecorded(recording, 7300000);
  const extrinsicsHex = block.extrinsics.map((extrinsic) => extrinsic.toHex());
  const eventsBytes = runtime.registry.createType('Vec<EventRecord>', events).toU8a();
  const noReference = () => {
    throw new Error('the compiled reading declined the block');
  };
  let deliver: (bytes: Uint8Array) => void = () => undefined;
  const later = decodeBody(runtime, extrinsicsHex, new Promise<Uint8Array>((resolve) => (deliver = resolve)), noReference);
  deliver(eventsBytes);
  const now = await decodeBody(runtime, extrinsicsHex, eventsBytes, noReference);
  expect(JSON.stringify(await later)).toBe(JSON.stringify(now));

  const before = { ...decodeCounters };
  const lost = new Error('the node went away');
  const failing = Promise.reject(lost);
  failing.catch(() => undefined); // awaited by decodeBody after the extrinsics, as the service hands it over
  await expect(decodeBody(runtime, extrinsicsHex, failing, noReference)).rejects.toBe(lost);
  expect(decodeCounters.fallback).toBe(before.fallback);
  expect(decodeCounters.faults).toBe(before.faults);
});

it('leaves runtimes before metadata v14 to polkadot.js', async () => {
  const { runtime } = await decodeRecorded(recording, 2392625);
  expect(runtime.codecs).toBeInstanceOf(UnsupportedFormat);
});

describe('FeeDetailsKnowledge', () => {
  it("follows sidecar's per-chain thresholds and learns runtimes without fee details", () => {
    const knowledge = new FeeDetailsKnowledge();
    expect(knowledge.support('polkadot', 27)).toBe('notAvailable');
    expect(knowledge.support('polkadot', 28)).toBe('available');
    expect(knowledge.support('kusama', 2027)).toBe('notAvailable');
    expect(knowledge.support('kusama', 9000)).toBe('available');
    expect(knowledge.support('somechain', 5)).toBe('unknown');
    knowledge.learnWithout('somechain', 5);
    expect(knowledge.support('somechain', 4)).toBe('notAvailable');
    expect(knowledge.support('somechain', 6)).toBe('unknown');
  });
});
