// `/blocks/{id}/extrinsics/{index}` cuts its extrinsic out of the block's JSON at
// the place noted when the block was serialized (src/services/blockAnswer.ts),
// instead of parsing the whole block and writing it again: the same bytes as
// that, kept through the cache, and a figure of what each costs.
import type { SidecarBlock, SidecarExtrinsic } from '../../src/services/blocks/blockShape';
import { extrinsicJson, fromCached, placesInText, serializeBlock, serializePiecewise, toCached, type BlockAnswer } from '../../src/services/blocks/blockAnswer';
import { loadPolkadotRecording } from '../../harness/recordedNode';

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
  it.each(Object.keys(recording.recorded))(
    'is JSON.stringify to the byte, and each extrinsic of recorded block %s is cut as parsing would give it',
    (number) => {
      const body = recordedBody(number);
      const answer = answerOf(body);
      expect(answer.json).toBe(JSON.stringify(body));
      for (let index = 0; index <= body.extrinsics.length; index++)
        expect(extrinsicJson(answer, index)).toBe(byParsing(answer.json, answer.number, answer.hash, index));
    },
  );

  it.each(Object.keys(recording.recorded))(
    'finds the places of recorded block %s in one JSON.stringify of it, as stringifying each extrinsic notes them',
    (number) => {
      const body = recordedBody(number);
      // The fast way is taken on real blocks (utility batches and nested calls among them), not only its fallback.
      expect(placesInText(body, JSON.stringify(body))).toEqual(serializePiecewise(body).extrinsicsAt);
    },
  );

  /** A recorded block with `change` made to a copy of its first two extrinsics (and their events), and its JSON. */
  function altered(change: (first: SidecarExtrinsic, second: SidecarExtrinsic) => void, more: Partial<SidecarBlock> = {}) {
    const body = recordedBody(Object.keys(recording.recorded)[0]);
    const [first, second] = JSON.parse(JSON.stringify(body.extrinsics.slice(0, 2))) as SidecarExtrinsic[];
    change(first, second);
    const block = { ...body, extrinsics: [first, second, ...body.extrinsics.slice(2)], ...more } as SidecarBlock;
    return { block, json: JSON.stringify(block) };
  }
  const lookalike = { method: { pallet: 'utility', method: 'batch' }, signature: null, args: {} };

  it("still reads the places when an argument only ends in a signature field (a heartbeat's shape)", () => {
    const { block, json } = altered((first) => {
      first.args = { heartbeat: { name: 'x' }, signature: '0x00' };
    });
    expect(placesInText(block, json)).toEqual(serializePiecewise(block).extrinsicsAt);
  });

  it.each([
    ['an event', (first: SidecarExtrinsic) => first.events.push({ method: { pallet: 'system', method: 'Remarked' }, data: [lookalike] })],
    ['an argument', (first: SidecarExtrinsic) => (first.args = { nested: lookalike })],
    // A real extrinsic that would not open as the others do (no signature field), with a lookalike making up the count.
    [
      'an argument, beside an extrinsic without a signature field',
      (first: SidecarExtrinsic, second: SidecarExtrinsic) => {
        (first as { signature?: unknown }).signature = undefined;
        second.args = { nested: lookalike };
      },
    ],
    [
      'an argument, beside a call name JSON would escape or that holds a brace',
      (first: SidecarExtrinsic, second: SidecarExtrinsic) => {
        first.method = { pallet: 'odd}', method: 'na"me' };
        second.args = { nested: lookalike };
      },
    ],
  ])('writes the pieces one by one when an extrinsic-shaped object is in %s, and places each extrinsic right', (_where, change) => {
    const { block, json } = altered(change as (first: SidecarExtrinsic, second: SidecarExtrinsic) => void);
    expect(placesInText(block, json)).toBeUndefined();
    const answer = answerOf(block);
    expect(answer.json).toBe(json);
    expect(answer.extrinsicsAt).toEqual(serializePiecewise(block).extrinsicsAt);
    for (let index = 0; index <= block.extrinsics.length; index++)
      expect(extrinsicJson(answer, index)).toBe(byParsing(json, answer.number, answer.hash, index));
  });

  it("writes the pieces one by one for a lookalike in the block's own events", () => {
    const event = { method: { pallet: 'system', method: 'Remarked' }, data: [lookalike] };
    const { block, json } = altered(() => undefined, { onInitialize: { events: [event] } } as Partial<SidecarBlock>);
    expect(placesInText(block, json)).toBeUndefined();
    expect(answerOf(block).extrinsicsAt).toEqual(serializePiecewise(block).extrinsicsAt);
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
    const [number] = Object.keys(recording.recorded).sort(
      (a, b) => JSON.stringify(recording.recorded[b]).length - JSON.stringify(recording.recorded[a]).length,
    );
    const body = recordedBody(number);
    const perExtrinsic = JSON.stringify(body.extrinsics).length / body.extrinsics.length;
    const many = Array.from({ length: Math.round(1.5e6 / perExtrinsic) }, (_, i) => body.extrinsics[i % body.extrinsics.length]);
    const big = { ...body, extrinsics: many };
    const answer = answerOf(big);
    const last = many.length - 1;
    expect(extrinsicJson(answer, last)).toBe(byParsing(answer.json, answer.number, answer.hash, last));
    const cached = toCached(answer);
    const [cut, parsed] = medianCpuMs([
      () => extrinsicJson(fromCached(answer.hash, cached, false), last),
      () => byParsing(answer.json, answer.number, answer.hash, last),
    ]);
    // What noting the places costs the build: the answer made flat, as it is before it is sent.
    const [placed, plain] = medianCpuMs([() => Buffer.byteLength(serializeBlock(big).json), () => Buffer.byteLength(JSON.stringify(big))]);
    console.log(
      `one extrinsic of a ${(answer.json.length / 1e6).toFixed(1)} MB block answer (${many.length} extrinsics), from its cache entry: cut ${cut.toFixed(3)} ms, ` +
        `parsed and written again (before) ${parsed.toFixed(2)} ms; serializing the block with its places ${placed.toFixed(2)} ms, without ${plain.toFixed(2)} ms`,
    );
  });
});
