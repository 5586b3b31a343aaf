// `/blocks/{id}/extrinsics/{index}` cuts its extrinsic out of the block's JSON at
// the place noted when the block was serialized (src/services/blockAnswer.ts),
// instead of parsing the whole block and writing it again: the same bytes as
// that, kept through the cache, and a figure of what each costs.
import type { SidecarBlock } from '../../src/services/blockShape';
import { extrinsicJson, extrinsicPlaces, fromCached, serializeBlock, serializePiecewise, toCached, type BlockAnswer } from '../../src/services/blockAnswer';
import { loadPolkadotRecording } from '../support/recordedNode';

const recording = loadPolkadotRecording();

/** The answer as it was made before: the whole block parsed, the extrinsic written again. */
function byParsing(json: string, number: number, hash: string, index: number): string | undefined {
  const body = JSON.parse(json) as { extrinsics: unknown[] };
  const extrinsic = body.extrinsics[index];
  return extrinsic === undefined ? undefined : JSON.stringify({ at: { height: String(number), hash }, extrinsics: extrinsic });
}

function answerOf(body: SidecarBlock, xcm?: string): BlockAnswer {
  return { hash: body.hash as `0x${string}`, number: Number(body.number), ...serializeBlock(body), xcm, finalized: true, immutable: true, fromCache: false };
}

function recordedBody(number: string): SidecarBlock {
  const { finalized: _finalized, ...body } = recording.recorded[number] as unknown as SidecarBlock;
  return body;
}

/** Median CPU milliseconds of each piece of work, taken in turns so a busy moment of the machine falls on all alike. */
function medianCpuMs(works: (() => unknown)[], rounds = 31): number[] {
  const times = works.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    works.forEach((work, i) => {
      const started = process.cpuUsage();
      work();
      const used = process.cpuUsage(started);
      times[i].push((used.user + used.system) / 1000);
    });
  }
  return times.map((list) => list.sort((x, y) => x - y)[rounds >> 1]);
}

describe('a block serialized with its extrinsics placed', () => {
  it.each(Object.keys(recording.recorded))('is JSON.stringify to the byte, and each extrinsic of recorded block %s is cut as parsing would give it', (number) => {
    const body = recordedBody(number);
    const answer = answerOf(body);
    expect(answer.json).toBe(JSON.stringify(body));
    for (let index = 0; index <= body.extrinsics.length; index++) expect(extrinsicJson(answer, index)).toBe(byParsing(answer.json, answer.number, answer.hash, index));
  });

  it.each(Object.keys(recording.recorded))('finds the places of recorded block %s in one JSON.stringify of it, as stringifying each extrinsic notes them', (number) => {
    const body = recordedBody(number);
    const json = JSON.stringify(body);
    const listEnd = json.lastIndexOf('],"onFinalize":');
    // The fast way is taken on real blocks (utility batches and nested calls among them), not only its fallback.
    expect(extrinsicPlaces(json, body.extrinsics.length, listEnd)).toEqual(serializePiecewise(body).extrinsicsAt);
  });

  it('writes the pieces one by one when another object opens as an extrinsic does, and places each extrinsic right', () => {
    const body = recordedBody(Object.keys(recording.recorded)[0]);
    const [first] = body.extrinsics;
    // An event and an argument shaped like an extrinsic's opening (call name, then a signature), and a struct whose last string field precedes one.
    const lookalike = { method: { pallet: 'utility', method: 'batch' }, signature: null, args: {} };
    const event = { method: { pallet: 'system', method: 'Remarked' }, data: [lookalike] };
    const extrinsics = [
      { ...first, events: [...first.events, event] },
      { ...first, args: { heartbeat: { name: 'x' }, signature: '0x00', nested: lookalike } },
      ...body.extrinsics.slice(1),
    ];
    const tricky = { ...body, extrinsics, onInitialize: { events: [event] } } as SidecarBlock;
    const json = JSON.stringify(tricky);
    expect(extrinsicPlaces(json, extrinsics.length, json.lastIndexOf('],"onFinalize":'))).toBeUndefined();
    const answer = answerOf(tricky);
    expect(answer.json).toBe(json);
    expect(answer.extrinsicsAt).toEqual(serializePiecewise(tricky).extrinsicsAt);
    for (let index = 0; index <= extrinsics.length; index++) expect(extrinsicJson(answer, index)).toBe(byParsing(json, answer.number, answer.hash, index));
  });

  it('keeps the places through the cache, with and without XCM messages', () => {
    const body = recordedBody(Object.keys(recording.recorded)[0]);
    for (const xcm of [undefined, '{"horizontalMessages":[],"downwardMessages":[],"upwardMessages":[]}']) {
      const answer = answerOf(body, xcm);
      const again = fromCached(answer.hash, toCached(answer), xcm !== undefined);
      expect(again).toMatchObject({ json: answer.json, xcm, extrinsicsAt: answer.extrinsicsAt, number: answer.number });
      expect(extrinsicJson(again, body.extrinsics.length - 1)).toBe(extrinsicJson(answer, body.extrinsics.length - 1));
    }
  });

  it('handles no extrinsics, fields left out, and text that looks like structure', () => {
    const tricky = '\\"],{"extrinsics":[1]}\\\\\n';
    const body = {
      number: '5',
      hash: '0x05',
      parentHash: tricky,
      authorId: undefined,
      logs: [tricky, { extrinsics: ['not these'] }],
      onInitialize: { events: [] },
      extrinsics: [{ args: { remark: tricky } }, { nested: [[{}], tricky] }],
      onFinalize: { events: [] },
    } as unknown as SidecarBlock;
    const answer = answerOf(body);
    expect(answer.json).toBe(JSON.stringify(body));
    for (let index = 0; index <= 2; index++) expect(extrinsicJson(answer, index)).toBe(byParsing(answer.json, 5, '0x05', index));
    const empty = answerOf({ ...body, extrinsics: [] });
    expect(empty.json).toBe(JSON.stringify({ ...body, extrinsics: [] }));
    expect(extrinsicJson(empty, 0)).toBeUndefined();
  });

  it('cuts an extrinsic at a cost that does not grow with the block (figures printed)', () => {
    // Recorded extrinsics with their events, repeated to about 1.5 MB: as big as the 3,002-extrinsic inscription block's answer.
    const [number] = Object.keys(recording.recorded).sort((a, b) => JSON.stringify(recording.recorded[b]).length - JSON.stringify(recording.recorded[a]).length);
    const body = recordedBody(number);
    const perExtrinsic = JSON.stringify(body.extrinsics).length / body.extrinsics.length;
    const many = Array.from({ length: Math.round(1.5e6 / perExtrinsic) }, (_, i) => body.extrinsics[i % body.extrinsics.length]);
    const big = { ...body, extrinsics: many };
    const answer = answerOf(big);
    const last = many.length - 1;
    expect(extrinsicJson(answer, last)).toBe(byParsing(answer.json, answer.number, answer.hash, last));
    const cached = toCached(answer);
    const [cut, parsed] = medianCpuMs([() => extrinsicJson(fromCached(answer.hash, cached, false), last), () => byParsing(answer.json, answer.number, answer.hash, last)]);
    // What noting the places costs the build: the answer made flat, as it is before it is sent.
    const [placed, plain] = medianCpuMs([() => Buffer.byteLength(serializeBlock(big).json), () => Buffer.byteLength(JSON.stringify(big))]);
    console.log(
      `one extrinsic of a ${(answer.json.length / 1e6).toFixed(1)} MB block answer (${many.length} extrinsics), from its cache entry: cut ${cut.toFixed(3)} ms, ` +
        `parsed and written again (before) ${parsed.toFixed(2)} ms; serializing the block with its places ${placed.toFixed(2)} ms, without ${plain.toFixed(2)} ms`,
    );
  });
});
