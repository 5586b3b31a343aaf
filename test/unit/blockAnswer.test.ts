// An answer is sent as bytes written in two parts; they must be what encoding the
// joined text would give, whatever is appended and whatever script the body holds.
import { answerBytes, withFinalizedTag } from '../../src/services/blocks/blockAnswer';

describe('an answer as sent', () => {
  const bodies = ['{"number":"1","logs":[]}', '{"number":"2","args":{"remark":"ünïcødé ✓ 𝄞"}}'];
  it.each(bodies.flatMap((json) => [true, false].flatMap((include) => [undefined, '[{"paraId":"1000"}]'].map((xcm) => [json, include, xcm] as const))))(
    '%s, finalized tag %s, xcm %s: the bytes of the joined text',
    (json, include, xcm) => {
      const answer = { json, finalized: true, xcm };
      const text = withFinalizedTag(answer, include);
      expect(answerBytes(answer, include).equals(Buffer.from(text))).toBe(true);
      expect(() => JSON.parse(text)).not.toThrow();
    },
  );
});
