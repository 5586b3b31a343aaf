// One warm-answer key per block and options (issue 22, item 8): every spelling of a
// block request that sidecar's parsing takes for the same block and options has the
// same canonical path, and only that path is ever kept hot.
import type { Request } from 'express';

import { BLOCK_ROUTES } from '../../src/controllers/blocks/routes';
import { parseParaId } from '../../src/controllers/blocks/params';
import { parseBlockId, parseFlags } from '../../src/controllers/params';
import { canonicalBlockPath, variantOf } from '../../src/services/blocks/answerVariant';

/** The canonical path of `/blocks/{raw}?{query}` as the block route reads it. */
function canonicalOf(raw: string, query: Record<string, string> = {}, mount = ''): string {
  const id = parseBlockId(raw);
  if (id.kind === 'beyond') throw new Error(`${raw} is beyond any head`);
  const flags = parseFlags({ query } as unknown as Request, BLOCK_ROUTES.block.query, false);
  return canonicalBlockPath(mount, id, variantOf(flags, parseParaId(query.paraId)));
}

describe('canonicalBlockPath', () => {
  // Number() reads all of these as heights, as sidecar 18's parseNumberOrThrow does.
  it.each([
    ['0b101', '/blocks/5'],
    ['0o7', '/blocks/7'],
    ['5.0', '/blocks/5'],
    ['0005', '/blocks/5'],
    ['+5', '/blocks/5'],
    [' 5', '/blocks/5'],
    ['5e0', '/blocks/5'],
    ['0X5', '/blocks/5'],
    ['-0', '/blocks/0'],
    ['1e3', '/blocks/1000'],
    ['5', '/blocks/5'],
  ])('spells %p as %p', (raw, canonical) => {
    expect(canonicalOf(raw)).toBe(canonical);
  });

  it('spells a hash in lower case', () => {
    const hash = `0x${'Ab'.repeat(32)}`;
    expect(canonicalOf(hash)).toBe(`/blocks/${hash.toLowerCase()}`);
  });

  it('keeps only the options that change the answer, in one spelling and order', () => {
    expect(canonicalOf('5', { noFees: 'false', finalizedKey: 'true', eventDocs: 'FALSE' })).toBe('/blocks/5');
    expect(canonicalOf('5', { noFee: 'TRUE' })).toBe('/blocks/5?noFees=true');
    expect(canonicalOf('5', { noFees: 'true', eventDocs: 'true' })).toBe('/blocks/5?eventDocs=true&noFees=true');
    expect(canonicalOf('5', { finalizedKey: 'false', extrinsicDocs: 'True' })).toBe('/blocks/5?extrinsicDocs=true&finalizedKey=false');
    expect(canonicalOf('5', { useEvmFormat: 'true' })).toBe('/blocks/5?useEvmFormat=true');
  });

  it('names paraId only where it filters something', () => {
    expect(canonicalOf('5', { paraId: '2000' })).toBe('/blocks/5');
    expect(canonicalOf('5', { decodedXcmMsgs: 'true', paraId: '0' })).toBe('/blocks/5?decodedXcmMsgs=true');
    expect(canonicalOf('5', { paraId: '02000', decodedXcmMsgs: 'true' })).toBe('/blocks/5?decodedXcmMsgs=true&paraId=2000');
  });

  it('is the same path an answer is asked for by in its canonical spelling, mounted where its chain is', () => {
    const url = '/blocks/5?eventDocs=true&noFees=true';
    const [path, search] = url.split('?');
    const query = Object.fromEntries(new URLSearchParams(search));
    expect(canonicalOf(path.slice('/blocks/'.length), query)).toBe(url);
    expect(canonicalOf('5', {}, '/rc')).toBe('/rc/blocks/5');
  });
});
