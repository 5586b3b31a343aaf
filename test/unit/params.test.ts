import type { Request } from 'express';

import { ApiError } from '../../src/errors';
import { parseIndex, parseParaId, parseRange } from '../../src/controllers/blocks/params';
import { MAX_BLOCKS_PER_REQUEST as MAX_RANGE, parseBlockId, parseFlags } from '../../src/controllers/params';

const request = (query: Record<string, unknown>) => ({ query }) as unknown as Request;

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('parseBlockId', () => {
  it('reads decimal numbers and 32-byte hashes', () => {
    expect(parseBlockId('0')).toEqual({ kind: 'number', number: 0 });
    expect(parseBlockId('12345')).toEqual({ kind: 'number', number: 12345 });
    const hash = `0x${'AB'.repeat(32)}`;
    expect(parseBlockId(hash)).toEqual({ kind: 'hash', hash: hash.toLowerCase() });
  });

  it('treats numbers past u32 as beyond the head rather than malformed', () => {
    expect(parseBlockId('4294967296')).toEqual({ kind: 'beyond', number: 4294967296 });
  });

  it.each(['-1', 'abc', '1.5', '', ' ', 'Infinity', '1e400'])('rejects %p with 400 and sidecar message', (raw) => {
    const error = errorOf(() => parseBlockId(raw));
    expect(error.status).toBe(400);
    expect(error.message).toContain('Block IDs must be either 32-byte hex strings or non-negative decimal integers');
  });

  it('rejects hex of the wrong length and non-hex after 0x', () => {
    expect(errorOf(() => parseBlockId('0x1234')).message).toContain('must be 32-bytes (66-characters)');
    expect(errorOf(() => parseBlockId(`0x${'zz'.repeat(32)}`)).message).toContain('must be a valid hex string');
  });
});

describe('parseRange', () => {
  it('expands a range inclusively', () => {
    expect(parseRange('3-6')).toEqual([3, 4, 5, 6]);
  });

  it.each([
    [undefined, 'range query parameter must be inputted.'],
    ['5', 'Incorrect range format'],
    ['a-5', 'min value for range must be an unsigned integer'],
    ['1-0', 'max value for range must be an unsigned non zero integer'],
    ['5-5', 'cannot be greater than or equal to the max value'],
    [`0-${MAX_RANGE + 1}`, `greater than the ${MAX_RANGE} range limit`],
    ['0-1000000000', 'range limit'],
    [['1-2', '3-4'], 'Incorrect range format'],
  ])('rejects %p', (raw, message) => {
    const error = errorOf(() => parseRange(raw));
    expect(error.status).toBe(400);
    expect(error.message).toContain(message);
  });
});

describe('parseParaId', () => {
  it('reads a whole number, and leaves an absent one absent', () => {
    expect(parseParaId('2000')).toBe(2000);
    expect(parseParaId(undefined)).toBeUndefined();
  });

  it.each([['abc'], ['-1'], ['1.5'], [['1', '2']]])('rejects %p with sidecar wording', (raw) => {
    const error = errorOf(() => parseParaId(raw));
    expect(error.status).toBe(400);
    expect(error.message).toBe('paraId must be an integer');
  });

  it('is not taken for a boolean flag where a route accepts it', () => {
    expect(parseFlags(request({ decodedXcmMsgs: 'true', paraId: '2000' }), ['decodedXcmMsgs', 'paraId'])).toEqual({ decodedXcmMsgs: true });
  });
});

describe('parseFlags', () => {
  it('accepts true/false in any case and the noFee alias', () => {
    expect(parseFlags(request({ eventDocs: 'TRUE', noFee: 'true' }), ['eventDocs', 'noFees'])).toEqual({ eventDocs: true, noFees: true });
    expect(parseFlags(request({ noFees: 'false' }), ['noFees'])).toEqual({ noFees: false });
  });

  it('rejects bad boolean values with sidecar wording', () => {
    const error = errorOf(() => parseFlags(request({ eventDocs: 'yes' }), ['eventDocs']));
    expect(error.status).toBe(400);
    expect(error.message).toBe('Query parameter: eventDocs has an invalid boolean value of yes');
  });

  it('rejects repeated parameters and unknown names', () => {
    expect(errorOf(() => parseFlags(request({ noFees: ['true', 'false'] }), ['noFees'])).status).toBe(400);
    const unknown = errorOf(() => parseFlags(request({ nofees: 'true' }), ['noFees']));
    expect(unknown.message).toContain('Unknown query parameter: nofees.');
    expect(unknown.message).toContain('Accepted: noFees');
  });
});

describe('parseIndex', () => {
  it('reads non-negative integers only', () => {
    expect(parseIndex('7')).toBe(7);
    expect(errorOf(() => parseIndex('-1')).status).toBe(400);
    expect(errorOf(() => parseIndex('x')).status).toBe(400);
  });
});
