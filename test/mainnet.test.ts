// Real Polkadot history, replayed offline: fastcar on a node that serves
// recorded blocks, events, runtimes and fee answers (test/fixtures/mainnet)
// must give the answers sidecar recorded from live nodes, field for field.
import type { Fastcar } from '../src/server';
import { getJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';
import { loadPolkadotRecording, startRecordedNode, type RecordedNode, type Recording } from '../harness/recordedNode';

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
  if (
    typeof actual !== typeof expected ||
    Array.isArray(actual) !== Array.isArray(expected) ||
    actual === null ||
    expected === null ||
    typeof actual !== 'object'
  ) {
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      found.push(`${path}: ${JSON.stringify(actual)?.slice(0, 160)} != ${JSON.stringify(expected)?.slice(0, 160)}`);
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

describe('variants of the recorded blocks', () => {
  const sample = () => recordedNumbers().filter((_, i) => i % 3 === 0);

  it('without fees: every info empty, everything else as recorded', async () => {
    for (const number of sample()) {
      const expected = structuredClone(recording.recorded[String(number)]) as { extrinsics: { info: unknown }[] };
      for (const extrinsic of expected.extrinsics) extrinsic.info = {};
      const { status, body } = await getJson(`${fastcar.url}/blocks/${number}?noFees=true`);
      expect([number, status, differences(body, expected)]).toEqual([number, 200, []]);
    }
  });

  it('single extrinsics, headers and raw extrinsics agree with the recorded block', async () => {
    for (const number of sample()) {
      const expected = recording.recorded[String(number)] as { hash: string; parentHash: string; stateRoot: string; extrinsics: unknown[] };
      const last = expected.extrinsics.length - 1;
      const single = await getJson(`${fastcar.url}/blocks/${number}/extrinsics/${last}`);
      expect(single.body).toEqual({ at: { height: String(number), hash: expected.hash }, extrinsics: expected.extrinsics[last] });
      const header = (await getJson(`${fastcar.url}/blocks/${expected.hash}/header`)).body as Record<string, unknown>;
      expect(header).toMatchObject({ number: String(number), parentHash: expected.parentHash, stateRoot: expected.stateRoot });
      const raw = (await getJson(`${fastcar.url}/blocks/${number}/extrinsics-raw`)).body as { extrinsics: string[] };
      expect(raw.extrinsics).toEqual(recording.blocks.find((block) => block.number === number)!.extrinsics);
    }
  });

  it('every recorded block, of every metadata version, answers with docs, and XCM where there is some', async () => {
    for (const block of recording.blocks) {
      const { status, body } = await getJson(`${fastcar.url}/blocks/${block.number}?eventDocs=true&extrinsicDocs=true&decodedXcmMsgs=true`);
      expect([block.number, status]).toEqual([block.number, 200]);
      const answer = body as { hash: string; extrinsics: unknown[]; decodedXcmMsgs: { upwardMessages: unknown[]; horizontalMessages: unknown[] } };
      expect(answer.hash).toBe(block.hash);
      expect(answer.extrinsics).toHaveLength(block.extrinsics.length);
      if (block.number === 18468942 || block.number === 19772575) {
        expect(answer.decodedXcmMsgs.upwardMessages.length + answer.decodedXcmMsgs.horizontalMessages.length).toBeGreaterThan(0);
      }
    }
  });

  it('keeps no answer for a block whose events the node has discarded', async () => {
    const pruned = recording.blocks.find((block) => block.events === undefined || block.events === null)!;
    const first = await getJson(`${fastcar.url}/blocks/${pruned.number}`);
    const second = await getJson(`${fastcar.url}/blocks/${pruned.number}`);
    expect([first.status, second.status, second.headers.get('x-cache')]).toEqual([200, 200, 'miss']);
    expect(second.headers.get('cache-control')).toBe('no-store');
  });
});

describe('a runtime that does not declare the TransactionPaymentApi', () => {
  const TRANSACTION_PAYMENT_API = '0x37c8bb1350a9a2a8';
  const withoutApi = (base: Recording, keepRpc: boolean): Recording => {
    const copy = structuredClone(base);
    for (const runtime of copy.runtimes) runtime.version.apis = runtime.version.apis.filter(([id]) => id !== TRANSACTION_PAYMENT_API);
    if (!keepRpc) copy.rpc = {};
    return copy;
  };

  it("is asked through the node's payment RPCs, and gives the recorded fees", async () => {
    const other = await startRecordedNode(withoutApi(recording, true));
    const service = await startFastcarOn(other.url, { FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      for (const number of [4392619, 7300000]) {
        const { body } = await getJson(`${service.url}/blocks/${number}`);
        expect(differences(body, recording.recorded[String(number)])).toEqual([]);
      }
      expect(other.gaps).toEqual([]);
    } finally {
      await service.close();
      await other.close();
    }
  });

  it('says the fee cannot be asked for when the node has no payment RPC either', async () => {
    const other = await startRecordedNode(withoutApi(recording, false));
    const service = await startFastcarOn(other.url, { FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      const { status, body } = await getJson(`${service.url}/blocks/4392619`);
      expect(status).toBe(200);
      const infos = (body as { extrinsics: { info: unknown; paysFee: boolean; signature: unknown }[] }).extrinsics
        .filter((x) => x.signature)
        .map((x) => x.info);
      expect(infos.length).toBeGreaterThan(0);
      for (const info of infos) expect(info).toEqual({ error: 'Rpc method payment::queryInfo is not available' });
    } finally {
      await service.close();
      await other.close();
    }
  });
});

// Last: every call made above had a recorded answer.
it('asked only for what the recording holds', () => {
  expect(node.gaps).toEqual([]);
});
