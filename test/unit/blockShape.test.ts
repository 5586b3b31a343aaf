// Shaping a decoded block into sidecar's JSON, with no node: recorded Polkadot
// blocks (metadata v12 and v14) against the answers sidecar recorded live.
import { shapeBlock } from '../../src/services/blockShape';
import { resolveFees } from '../../src/services/fees';
import { FeeDetailsKnowledge } from '../../src/services/feeRules';
import { decodeRecorded } from '../support/recordedBlocks';
import { loadPolkadotRecording } from '../support/recordedNode';

const recording = loadPolkadotRecording();
const query = { eventDocs: false, extrinsicDocs: false, noFees: false, decodedXcmMsgs: false };

describe.each([2392625, 4392619, 7300000])('block %i', (number) => {
  const expected = recording.recorded[String(number)] as { hash: string; finalized?: boolean; extrinsics: { info: unknown }[] };

  it('shapes to sidecar JSON, every field but the fees', async () => {
    const { runtime, block, events, validators } = await decodeRecorded(recording, number);
    const { body } = shapeBlock(runtime.registry, expected.hash, block, events, validators, query);
    const { finalized: _finalized, ...withoutTag } = expected;
    const withoutFees = { ...withoutTag, extrinsics: expected.extrinsics.map((x) => ({ ...x, info: {} })) };
    expect(JSON.parse(JSON.stringify(body))).toEqual(withoutFees);
  });

  it("fills the fees as sidecar's rules give them", async () => {
    const { runtime, block, events, validators, node } = await decodeRecorded(recording, number);
    const { body, facts } = shapeBlock(runtime.registry, expected.hash, block, events, validators, query);
    await resolveFees(block, body.extrinsics, facts, {
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
