// One reading of headers for every route (src/services/headers.ts): the answers of
// `/header` and `/extrinsics-raw` and a header's hash, read without polkadot.js,
// must be polkadot.js's to the byte, on every recorded Polkadot header and on
// digest items those lack; a header the reading declines goes to polkadot.js.
import { toSidecarJson } from '../../src/decode/codecJson';
import { headerCodecOf, logsToJson } from '../../src/decode/polkadotReference';
import { readHeader } from '../../src/decode/header';
import type { RpcHeader } from '../../src/rpc/nodeClient';
import { hashOfHeader, headerAnswer, rawBlockAnswer } from '../../src/services/headers';
import { loadPolkadotRecording } from '../../harness/recordedNode';

const recording = loadPolkadotRecording();

/** What the routes answered when they read every header with polkadot.js. */
function referenceAnswers(header: RpcHeader, extrinsics: `0x${string}`[]) {
  const codec = headerCodecOf(header);
  return {
    header: JSON.stringify(toSidecarJson(codec)),
    raw: JSON.stringify({
      parentHash: codec.parentHash.toHex(),
      number: codec.number.unwrap().toHex(),
      stateRoot: codec.stateRoot.toHex(),
      extrinsicRoot: codec.extrinsicsRoot.toHex(),
      digest: { logs: logsToJson(codec) },
      extrinsics,
    }),
    hash: codec.hash.toHex(),
  };
}

const withLogs = (header: RpcHeader, ...logs: `0x${string}`[]): RpcHeader => ({ ...header, digest: { logs: [...header.digest.logs, ...logs] } });
const base = recording.blocks[recording.blocks.length - 1];

const cases: [string, RpcHeader, boolean][] = [
  ...recording.blocks.map((block): [string, RpcHeader, boolean] => [`recorded block ${block.number}`, block.header, true]),
  // Other (0): bytes; RuntimeEnvironmentUpdated (8): no value; a small height (padded in the raw answer).
  ['Other and RuntimeEnvironmentUpdated items', withLogs(base.header, '0x000c010203', '0x08'), true],
  ['a small height', { ...base.header, number: '0x11' }, true],
  // ChangesTrieRoot (2), long gone from Substrate: the reading declines it, polkadot.js reads it.
  ['an item the reading declines', withLogs(base.header, `0x02${'11'.repeat(32)}`), false],
];

describe.each(cases)('%s', (_name, header, readable) => {
  it('is answered as polkadot.js answered it', () => {
    expect(readHeader(header) !== undefined).toBe(readable);
    const expected = referenceAnswers(header, base.extrinsics);
    expect(headerAnswer(header)).toBe(expected.header);
    expect(rawBlockAnswer({ header, extrinsics: base.extrinsics })).toBe(expected.raw);
    expect(hashOfHeader(header)).toBe(expected.hash);
  });
});
