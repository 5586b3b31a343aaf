// How a v5 extrinsic is shown and which fee it gets, on decoded data alone:
// a general transaction signed through an extension (VerifySignature), which no
// runtime at hand can put in a block (the devnet's has no such extension), one
// authorized without a signature, with and without a fee event, and a bare one.
// The decoding itself is fuzzed in test/decodeFuzz.test.ts; the devnet blocks
// are in test/extrinsicV5.test.ts.
import type { TypeRegistry } from '@polkadot/types';

import type { DecodedEvent, DecodedExtrinsic } from '../../src/decode/runtimeCodecs';
import type { NodeClient } from '../../src/rpc/nodeClient';
import type { DecodedBody } from '../../src/decode/decodedBody';
import { assembleBlock } from '../../src/services/blocks/blockShape';
import { resolveFees } from '../../src/services/fees';
import { FeeDetailsKnowledge } from '../../src/services/feeRules';

const HEADER = {
  number: '7',
  parentHash: `0x${'01'.repeat(32)}`,
  stateRoot: `0x${'02'.repeat(32)}`,
  extrinsicsRoot: `0x${'03'.repeat(32)}`,
  authorId: undefined,
  logs: [],
};
const SIGNER = { id: '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY' };
const call = { pallet: 'system', method: 'remark', docs: 'Make some on-chain remark.', args: { remark: '0x01' } };
const immortal = { immortalEra: '0x00' };

const generalSigned: DecodedExtrinsic = {
  call,
  signature: { signer: SIGNER, signature: `0x${'ab'.repeat(64)}` },
  nonce: '3',
  tip: '10',
  era: immortal,
  format: { version: 5, kind: 'general', extensionVersion: 1 },
};
const generalAuthorized = (index: number): DecodedExtrinsic => ({
  call,
  signature: null,
  nonce: '0',
  tip: '0',
  era: immortal,
  format: { version: 5, kind: 'general', extensionVersion: index },
});
const bare: DecodedExtrinsic = { call, signature: null, nonce: null, tip: null, era: immortal, format: { version: 5, kind: 'bare' } };

const dispatchInfo = { weight: { refTime: '1000', proofSize: '10' }, class: 'Normal', paysFee: 'Yes' };
const event = (index: number, pallet: string, method: string, data: DecodedEvent['data']): DecodedEvent => ({
  phase: { kind: 'applyExtrinsic', index },
  pallet,
  method,
  docs: '',
  data,
});
const feePaid = (index: number, fee: string) => event(index, 'transactionPayment', 'TransactionFeePaid', [SIGNER.id, fee, '0']);
const success = (index: number) => event(index, 'system', 'ExtrinsicSuccess', [dispatchInfo]);

function body(extrinsics: DecodedExtrinsic[], events: DecodedEvent[] | null): DecodedBody {
  return {
    extrinsics,
    extrinsicBytes: extrinsics.map((_, i) => new Uint8Array([i])),
    hashes: extrinsics.map((_, i) => `0x${String(i).padStart(64, '0')}`),
    events,
  };
}

/** Fees as the service resolves them, with a node that fails the test if it is asked anything. */
async function withFees(decoded: DecodedBody) {
  const { body: block, facts } = assembleBlock(`0x${'aa'.repeat(32)}`, HEADER, decoded, { eventDocs: false, extrinsicDocs: false });
  const node = new Proxy({}, { get: () => () => Promise.reject(new Error('the node was asked')) }) as unknown as NodeClient;
  await resolveFees(block.extrinsics, facts, {
    node,
    registry: {} as TypeRegistry,
    parentHash: `0x${'01'.repeat(32)}`,
    specName: 'statemint',
    specVersion: 2_000_000,
    hasTransactionPaymentApi: true,
    feeDetails: new FeeDetailsKnowledge(),
    noFees: false,
  });
  return { block, facts };
}

it('shows a general transaction signed through an extension as a signed one, with its version and the fee its event reports', async () => {
  const { block, facts } = await withFees(body([generalSigned], [feePaid(0, '4200'), success(0)]));
  const [shown] = block.extrinsics;
  expect(JSON.parse(JSON.stringify(shown))).toEqual({
    method: { pallet: 'system', method: 'remark' },
    signature: { signer: SIGNER, signature: `0x${'ab'.repeat(64)}` },
    nonce: '3',
    args: { remark: '0x01' },
    tip: '10',
    hash: `0x${'0'.repeat(64)}`,
    info: { weight: dispatchInfo.weight, class: 'Normal', partialFee: '4200', kind: 'fromEvent' },
    era: immortal,
    events: [
      { method: { pallet: 'transactionPayment', method: 'TransactionFeePaid' }, data: [SIGNER.id, '4200', '0'] },
      { method: { pallet: 'system', method: 'ExtrinsicSuccess' }, data: [dispatchInfo] },
    ],
    success: true,
    paysFee: true,
    version: 5,
    transactionExtensionVersion: 1,
  });
  expect(facts[0].isSigned).toBe(true);
});

it('a general transaction authorized without a signature pays what its fee event says, or nothing', async () => {
  const { block, facts } = await withFees(body([generalAuthorized(0), generalAuthorized(0)], [feePaid(0, '77'), success(0), success(1)]));
  const [paid, free] = block.extrinsics;
  expect(paid).toMatchObject({ signature: null, paysFee: true, info: { partialFee: '77', kind: 'fromEvent' }, version: 5, transactionExtensionVersion: 0 });
  // DispatchInfo says Yes, but no one was charged: there was no signer, and no fee event.
  expect(free).toMatchObject({ signature: null, paysFee: false, info: {}, version: 5 });
  expect(facts.map((fact) => fact.isSigned)).toEqual([true, false]);
});

it('without events (pruned state), whether a general transaction paid is unknown, as for a signed one', async () => {
  const { block } = await withFees(body([generalAuthorized(0), generalSigned, bare], null));
  expect(block.extrinsics.map((extrinsic) => extrinsic.paysFee)).toEqual([null, null, false]);
  expect(block.extrinsics.map((extrinsic) => extrinsic.info)).toEqual([{}, {}, {}]);
});

it('shows a bare v5 extrinsic exactly as an unsigned v4 one, as sidecar does', async () => {
  const v4Unsigned: DecodedExtrinsic = { ...bare, format: { version: 4, kind: 'bare' } };
  const { block } = await withFees(body([bare, v4Unsigned], [success(0), success(1)]));
  const [v5, v4] = block.extrinsics.map((extrinsic) => JSON.stringify({ ...extrinsic, hash: undefined }));
  expect(v5).toBe(v4);
  expect(block.extrinsics[0]).not.toHaveProperty('version');
  expect(block.extrinsics[0]).toMatchObject({ signature: null, paysFee: false, info: {} });
});
