// Real Polkadot history, replayed offline: fastcar on a node that serves
// recorded blocks, events, runtimes and fee answers (test/fixtures/mainnet)
// must give the answers sidecar recorded from live nodes, field for field.
import type { Fastcar } from '../src/server';
import { getJson, startFastcarOn } from './support/peers';
import { loadPolkadotRecording, startRecordedNode, type RecordedNode, type Recording } from './support/recordedNode';

let recording: Recording;
let node: RecordedNode;
let fastcar: Fastcar;

beforeAll(async () => {
  recording = loadPolkadotRecording();
  node = await startRecordedNode(recording);
  fastcar = await startFastcarOn(node.url, { FASTCAR_PREBUILD_BLOCKS: '0' });
}, 60_000);

afterAll(async () => {
  await fastcar?.close();
  await node?.close();
});

/** Where two JSON values differ, as paths with both sides (at most a few). */
function differences(actual: unknown, expected: unknown, path = '$', found: string[] = []): string[] {
  if (found.length >= 6) return found;
  if (typeof actual !== typeof expected || Array.isArray(actual) !== Array.isArray(expected) || actual === null || expected === null || typeof actual !== 'object') {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) found.push(`${path}: ${JSON.stringify(actual)?.slice(0, 160)} != ${JSON.stringify(expected)?.slice(0, 160)}`);
    return found;
  }
  const keys = new Set([...Object.keys(actual as object), ...Object.keys(expected as object)]);
  for (const key of keys) differences((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${path}.${key}`, found);
  return found;
}

const recordedNumbers = () => Object.keys(loadPolkadotRecording().recorded).map(Number);

describe.each(recordedNumbers())('block %i', (number) => {
  it('by number and by hash, equals the answer sidecar recorded from a live node', async () => {
    const expected = recording.recorded[String(number)];
    const byNumber = await getJson(`${fastcar.url}/blocks/${number}`);
    expect([byNumber.status, differences(byNumber.body, expected)]).toEqual([200, []]);
    const byHash = await getJson(`${fastcar.url}/blocks/${expected.hash as string}`);
    expect([byHash.status, differences(byHash.body, expected)]).toEqual([200, []]);
  });
});

it('asked only for what the recording holds', () => {
  expect(node.gaps).toEqual([]);
});
