// plainCall reads the commonest single calls without JSON.parse. It must never read a
// text differently from the full parse: whatever it takes, it takes exactly as
// parseMessage + readCall would, and everything else is left to them (and their errors).
import { parseMessage, plainCall, readCall, type RpcCall } from '../../src/proxy/jsonRpc';
import { RpcCode } from '../../src/rpc/rpcCodes';

/** The call the full path reads from `text`, or undefined when it answers an error. */
function fullRead(text: string): RpcCall | undefined {
  const parsed = parseMessage(text);
  if (!parsed.ok) return undefined;
  const read = readCall(parsed.value);
  return 'call' in read ? read.call : undefined;
}

describe('plainCall', () => {
  it.each([
    '{"jsonrpc":"2.0","id":1,"method":"system_chain","params":[]}',
    '{"jsonrpc":"2.0","id":0,"method":"system_chain"}',
    '{"id":42,"jsonrpc":"2.0","method":"chain_getFinalizedHead","params":[]}',
    '{"jsonrpc":"2.0","id":"req-7_a","method":"system_properties","params":[]}',
    '{"jsonrpc":"2.0","id":"","method":"rpc_methods"}',
    '{"jsonrpc":"2.0","id":999999999999999,"method":"system_chain","params":[]}',
  ])('reads %s as the full parse does', (text) => {
    const call = plainCall(text);
    expect(call).toBeDefined();
    expect(call).toEqual(fullRead(text));
  });

  it.each([
    ['whitespace', '{ "jsonrpc":"2.0","id":1,"method":"system_chain","params":[]}'],
    ['trailing bytes', '{"jsonrpc":"2.0","id":1,"method":"system_chain","params":[]}x'],
    ['a second object', '{"jsonrpc":"2.0","id":1,"method":"system_chain"}{"jsonrpc":"2.0","id":2,"method":"x"}'],
    ['an escaped id', '{"jsonrpc":"2.0","id":"a\\"b","method":"system_chain","params":[]}'],
    ['a unicode escape in the method', '{"jsonrpc":"2.0","id":1,"method":"system_\\u0063hain","params":[]}'],
    ['a negative id', '{"jsonrpc":"2.0","id":-1,"method":"system_chain","params":[]}'],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"system_chain","params":[]}'],
    ['an exponent id', '{"jsonrpc":"2.0","id":1e3,"method":"system_chain","params":[]}'],
    ['a leading zero', '{"jsonrpc":"2.0","id":01,"method":"system_chain","params":[]}'],
    ['an id past the safe integers', '{"jsonrpc":"2.0","id":12345678901234567,"method":"system_chain","params":[]}'],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"system_chain","params":[]}'],
    ['no id (a notification)', '{"jsonrpc":"2.0","method":"system_chain","params":[]}'],
    ['an object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"system_chain","params":[]}'],
    ['another version', '{"jsonrpc":"2.1","id":1,"method":"system_chain","params":[]}'],
    ['a duplicate key', '{"jsonrpc":"2.0","id":1,"method":"system_chain","method":"author_submitExtrinsic"}'],
    ['params given', '{"jsonrpc":"2.0","id":1,"method":"chain_getBlockHash","params":[1]}'],
    ['params as an object', '{"jsonrpc":"2.0","id":1,"method":"system_chain","params":{}}'],
    ['a prototype name', '{"jsonrpc":"2.0","id":1,"method":"__proto__","params":[]}'],
    ['an empty method', '{"jsonrpc":"2.0","id":1,"method":"","params":[]}'],
    ['a method too long', `{"jsonrpc":"2.0","id":1,"method":"${'a'.repeat(129)}","params":[]}`],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"system_chain","params":[]}]'],
    ['a cut body', '{"jsonrpc":"2.0","id":1,"method":"system_chain","params":['],
    ['an empty body', ''],
  ])('leaves %s to the full parse', (_name, text) => {
    expect(plainCall(text)).toBeUndefined();
  });

  it('leaves the error answers to the full path', () => {
    const cut = parseMessage('{"jsonrpc":"2.0","id":1,"method":"system_chain","params":[');
    expect(cut.ok).toBe(false);
    if (!cut.ok && 'error' in cut.response) expect(cut.response.error.code).toBe(RpcCode.parseError);
    const parsed = parseMessage('{"jsonrpc":"2.1","id":1,"method":"system_chain","params":[]}');
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      const read = readCall(parsed.value);
      expect('response' in read && 'error' in read.response && read.response.error.code).toBe(RpcCode.invalidRequest);
    }
  });

  it('never reads a mangled call differently from the full parse', () => {
    // Deterministic mutations of plain calls: a character dropped, doubled or replaced, at every place.
    const bases = ['{"jsonrpc":"2.0","id":12,"method":"system_chain","params":[]}', '{"id":"ab","jsonrpc":"2.0","method":"rpc_methods"}'];
    const replacements = ['"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', '-', 'e', '.', 'a', '\u00e9', '\u2028'];
    let taken = 0;
    for (const base of bases) {
      for (let i = 0; i <= base.length; i++) {
        const variants = [base.slice(0, i) + base.slice(i + 1), base.slice(0, i) + base[i] + base.slice(i)];
        for (const r of replacements) variants.push(base.slice(0, i) + r + base.slice(i + 1), base.slice(0, i) + r + base.slice(i));
        for (const text of variants) {
          const call = plainCall(text);
          if (call === undefined) continue;
          taken += 1;
          expect(call).toEqual(fullRead(text));
        }
      }
    }
    expect(taken).toBeGreaterThan(0);
  });
});
