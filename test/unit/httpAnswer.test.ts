// What an HTTP JSON-RPC server's answer means (src/rpc/httpAnswer.ts), read with no
// socket: per call a result, the node's error or "slow down"; for the POST a throttle,
// an error page worth another try, a refused batch, or a server that is no JSON-RPC one.
import { classifyHttpAnswer, classifyHttpFailure } from '../../src/rpc/httpAnswer';
import { RpcError } from '../../src/rpc/nodeErrors';

const now = Date.parse('2026-11-24T10:00:00Z');
const json = (value: unknown) => JSON.stringify(value);
const answer = (id: unknown, result: unknown) => ({ jsonrpc: '2.0', id, result });
const error = (id: unknown, code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0', id, error: { code, message, data } });

describe('a single call', () => {
  it('is its result', () => {
    expect(classifyHttpAnswer(200, {}, json(answer(7, '0x01')), [7], now)).toEqual({ kind: 'answers', answers: [{ kind: 'result', result: '0x01' }] });
  });

  it("is the node's error, with code, message and data", () => {
    const read = classifyHttpAnswer(200, {}, json(error(7, -32602, 'Invalid params', { reason: 'bad hash' })), [7], now);
    expect(read.kind).toBe('answers');
    const [only] = read.kind === 'answers' ? read.answers : [];
    expect(only?.kind).toBe('error');
    const rpcError = only?.kind === 'error' ? only.error : undefined;
    expect(rpcError).toBeInstanceOf(RpcError);
    expect([rpcError?.code, rpcError?.message, rpcError?.data]).toEqual([-32602, 'Invalid params', { reason: 'bad hash' }]);
    expect(rpcError?.detail).toBe('-32602: Invalid params: {"reason":"bad hash"}');
  });

  it('answered with a null id (some servers do so for errors) is still its answer; another id is none', () => {
    const read = classifyHttpAnswer(200, {}, json(error(null, -32000, 'Execution failed')), [7], now);
    expect(read.kind === 'answers' && read.answers[0]?.kind).toBe('error');
    expect(classifyHttpAnswer(200, {}, json(answer(8, 'x')), [7], now)).toEqual({ kind: 'answers', answers: [undefined] });
  });

  it('told to slow down by a JSON-RPC error (code or words) is throttled, with the Retry-After', () => {
    expect(classifyHttpAnswer(200, { 'retry-after': '2' }, json(error(7, -32005, 'Too many requests')), [7], now)).toEqual({
      kind: 'answers',
      answers: [{ kind: 'throttled' }],
      retryAfterMs: 2000,
    });
    const words = classifyHttpAnswer(200, {}, json(error(7, -32000, 'Server is busy, try again')), [7], now);
    expect(words.kind === 'answers' && words.answers[0]).toEqual({ kind: 'throttled' });
  });

  it('without a JSON-RPC answer is fatal: the server does not speak JSON-RPC', () => {
    expect(classifyHttpAnswer(404, {}, '<html>not here</html>', [7], now)).toEqual({
      kind: 'fatal',
      message: 'the JSON-RPC server answered HTTP 404 without a JSON-RPC answer',
    });
    expect(classifyHttpAnswer(200, {}, json({ hello: 'world' }), [7], now).kind).toBe('fatal');
  });
});

describe('the whole POST', () => {
  it('is throttled by HTTP 429 and 503, Retry-After in seconds or as a date, at most 60 s', () => {
    expect(classifyHttpAnswer(429, { 'retry-after': '1.5' }, '', [1, 2], now)).toEqual({ kind: 'throttled', how: 'http429', retryAfterMs: 1500 });
    expect(classifyHttpAnswer(503, { 'retry-after': 'Tue, 24 Nov 2026 10:00:04 GMT' }, json(error(1, -32000, 'x')), [1], now)).toEqual({
      kind: 'throttled',
      how: 'http503',
      retryAfterMs: 4000,
    });
    expect(classifyHttpAnswer(429, { 'retry-after': '86400' }, '', [1], now)).toEqual({ kind: 'throttled', how: 'http429', retryAfterMs: 60_000 });
    expect(classifyHttpAnswer(429, {}, '', [1], now)).toEqual({ kind: 'throttled', how: 'http429', retryAfterMs: undefined });
  });

  it('is an error page worth another try when a 5xx carries no JSON-RPC answer', () => {
    expect(classifyHttpAnswer(502, {}, 'Bad Gateway', [1, 2], now)).toEqual({ kind: 'serverError', message: 'the JSON-RPC server answered HTTP 502' });
    // A 500 that does carry JSON-RPC answers is read as answers.
    expect(classifyHttpAnswer(500, {}, json(error(1, -32603, 'Internal error')), [1], now).kind).toBe('answers');
  });

  it('is one throttle when a batch is answered by one "slow down" error', () => {
    expect(classifyHttpAnswer(200, { 'retry-after': '1' }, json(error(null, -32098, 'rate limit exceeded')), [1, 2], now)).toEqual({
      kind: 'throttled',
      how: 'rpc',
      retryAfterMs: 1000,
    });
  });
});

describe('a batch', () => {
  it('is answered call by call, by id and in any order; a call left out has no answer', () => {
    const body = json([answer(3, 'c'), error(1, -32601, 'Method not found'), error(2, 429, 'too many requests'), answer(1, 'again')]);
    const read = classifyHttpAnswer(200, {}, body, [1, 2, 3, 4], now);
    expect(read.kind).toBe('answers');
    if (read.kind !== 'answers') return;
    expect(read.answers.map((a) => a?.kind)).toEqual(['error', 'throttled', 'result', undefined]);
    expect(read.answers[2]).toEqual({ kind: 'result', result: 'c' });
  });

  it('too large (HTTP 413, or the error that says so) is to be cut smaller', () => {
    expect(classifyHttpAnswer(413, {}, 'Payload Too Large', [1, 2], now)).toEqual({ kind: 'batchTooLarge' });
    expect(classifyHttpAnswer(200, {}, json(error(null, -32010, 'whatever')), [1, 2], now)).toEqual({ kind: 'batchTooLarge' });
    expect(classifyHttpAnswer(200, {}, json(error(null, -32600, 'Batch size exceeds the limit of 10')), [1, 2], now)).toEqual({ kind: 'batchTooLarge' });
  });

  it('answered by anything but a list (a 4xx, one error for all, nonsense) is refused: single calls from now on', () => {
    expect(classifyHttpAnswer(400, {}, 'no', [1, 2], now)).toEqual({ kind: 'batchRefused' });
    expect(classifyHttpAnswer(200, {}, json(error(null, -32600, 'Invalid request')), [1, 2], now)).toEqual({ kind: 'batchRefused' });
    expect(classifyHttpAnswer(200, {}, json(answer(1, 'x')), [1, 2], now)).toEqual({ kind: 'batchRefused' });
  });
});

describe('a POST with no answer', () => {
  it('on a connection the server had closed is worth another try; an answer over the size limit is told apart', () => {
    expect(classifyHttpFailure(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }))).toEqual({
      kind: 'staleConnection',
      message: 'UND_ERR_SOCKET: other side closed',
    });
    const tooLarge = Object.assign(new Error('Response content exceeded max size'), { code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' });
    expect(classifyHttpFailure(tooLarge).kind).toBe('answerTooLarge');
    const refused = Object.assign(new TypeError('fetch failed'), { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    expect(classifyHttpFailure(refused)).toEqual({ kind: 'unreachable', message: 'fetch failed (connect ECONNREFUSED 127.0.0.1:1)' });
  });
});
