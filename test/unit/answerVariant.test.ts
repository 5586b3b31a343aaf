// The options that change a block answer are declared once (answerVariant.ts): every
// parameter of a route that answers blocks is either one of them or named here as not
// changing the answer's bytes, and each option, set, changes every key it must.
import { BLOCK_ROUTES, BLOCKS_FAMILY } from '../../src/controllers/blocks/routes';
import { FOLLOW_ROUTES } from '../../src/controllers/follow/routes';
import { parseFlags } from '../../src/controllers/params';
import { builtKey, canonicalBlockPath, variantKey, variantOf, VARIANT_OPTIONS, type AnswerVariant } from '../../src/services/blocks/answerVariant';

/** Parameters of block-answering routes that choose which blocks, or how a list is wrapped: never the bytes of one block's answer. */
const NOT_IN_THE_ANSWER: Record<string, string> = {
  finalized: 'chooses the head block, whose answer is then the same as by its height',
  range: 'chooses the heights',
  useRcBlock: 'chooses blocks by a relay block; such lists are never cached or kept',
  useRcBlockFormat: 'wraps the list of a relay block',
  from: 'chooses where a stream starts or a search looks',
  to: 'chooses where a search looks',
};

const BLOCK_ANSWERING = [
  BLOCK_ROUTES.block,
  BLOCK_ROUTES.head,
  BLOCK_ROUTES.range,
  BLOCK_ROUTES.extrinsic,
  FOLLOW_ROUTES.blockStream,
  FOLLOW_ROUTES.extrinsicByHash,
];

const id = { kind: 'number', number: 5 } as const;
const plain = variantOf({});
const allSet = (): AnswerVariant[] =>
  VARIANT_OPTIONS.map((name) => {
    if (name === 'paraId') return { ...plain, decodedXcmMsgs: true, paraId: 2000 };
    const flag = name as Exclude<keyof AnswerVariant, 'paraId'>;
    return { ...plain, [flag]: !plain[flag] };
  });

describe('the answer variant', () => {
  it('covers every parameter of every route that answers blocks, or that parameter is named as not changing the bytes', () => {
    for (const route of BLOCK_ANSWERING) {
      for (const name of route.query) {
        expect([route.path, name, VARIANT_OPTIONS.includes(name) || name in NOT_IN_THE_ANSWER]).toEqual([route.path, name, true]);
      }
    }
  });

  it('reads each flag by its table default when the request does not say', () => {
    expect(plain).toEqual({
      eventDocs: false,
      extrinsicDocs: false,
      noFees: false,
      finalizedKey: true,
      decodedXcmMsgs: false,
      paraId: undefined,
      useEvmFormat: false,
    });
  });

  it('gives each option, set, its own sent key and canonical path; only options that change the build change the built key', () => {
    const variants = allSet();
    const sentKeys = new Set([plain, ...variants].map(variantKey));
    const paths = new Set([plain, ...variants].map((variant) => canonicalBlockPath('', id, variant)));
    expect(sentKeys.size).toBe(variants.length + 1);
    expect(paths.size).toBe(variants.length + 1);
    // paraId is set beside decodedXcmMsgs (alone it filters nothing): measured against that.
    const baseOf = (name: string) => (name === 'paraId' ? { ...plain, decodedXcmMsgs: true } : plain);
    const changingBuild = VARIANT_OPTIONS.filter((name, i) => builtKey(variants[i]) !== builtKey(baseOf(name)));
    expect(changingBuild).toEqual(['eventDocs', 'extrinsicDocs', 'noFees', 'decodedXcmMsgs']);
  });

  it('keeps the cache keys written before it (entries in a shared Redis stay readable)', () => {
    expect(builtKey(plain)).toBe('0000');
    expect(builtKey({ ...plain, noFees: true, decodedXcmMsgs: true })).toBe('0011');
  });

  it('reads back from its canonical path the same variant', () => {
    for (const variant of allSet()) {
      const path = canonicalBlockPath('', id, variant);
      const query = Object.fromEntries(new URLSearchParams(path.split('?')[1] ?? ''));
      const flags = parseFlags({ query }, BLOCKS_FAMILY.routes.block.query, true);
      const paraId = query.paraId === undefined ? undefined : Number(query.paraId);
      expect(variantKey(variantOf(flags, paraId))).toBe(variantKey(variant));
    }
  });

  it('treats paraId as it matters: only with decodedXcmMsgs, and 0 as none', () => {
    expect(variantKey({ ...plain, paraId: 7 })).toBe(variantKey(plain));
    expect(variantKey({ ...plain, decodedXcmMsgs: true, paraId: 0 })).toBe(variantKey({ ...plain, decodedXcmMsgs: true }));
    expect(variantKey({ ...plain, decodedXcmMsgs: true, paraId: 7 })).not.toBe(variantKey({ ...plain, decodedXcmMsgs: true }));
  });
});
