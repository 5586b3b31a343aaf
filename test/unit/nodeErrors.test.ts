// Telling a method the node cannot answer at all (a fee estimate then says the payment API is
// not available, as sidecar does) from a call that failed for another reason (an unknown block).
import { isMissingMethod, NodeRpcError, NodeTimeoutError, RpcError } from '../../src/rpc/nodeErrors';

describe('isMissingMethod', () => {
  test('an RPC the node does not serve', () => {
    expect(isMissingMethod(new RpcError(-32601, 'Method not found'))).toBe(true);
    expect(isMissingMethod(new NodeRpcError(new RpcError(-32601, 'Method not found: payment_queryInfo')))).toBe(true);
  });

  test('a runtime that exports no such function, asked through the node', () => {
    const message = 'Client error: Execution failed: Other: Exported method TransactionPaymentApi_query_info is not found';
    expect(isMissingMethod(new NodeRpcError(new RpcError(4003, message)))).toBe(true);
  });

  test('not a block the node does not know, nor any other failure', () => {
    expect(isMissingMethod(new NodeRpcError(new RpcError(1, `Block 0x${'11'.repeat(32)} not found`)))).toBe(false);
    expect(isMissingMethod(new NodeRpcError(new RpcError(-32000, 'State already discarded for 0x12')))).toBe(false);
    expect(isMissingMethod(new NodeTimeoutError('no answer'))).toBe(false);
    expect(isMissingMethod(new Error('Method not found'))).toBe(false);
  });
});
