// The JSON Schemas of the `/blocks` answers, as the OpenAPI document lists them.
import { anyJson, closed, decimal, hash, hex, ref } from '../../http/schemas';
import type { Schema } from '../../http/routes';

export const BLOCK_SCHEMAS: Record<string, Schema> = {
  MethodName: closed({ pallet: { type: 'string' }, method: { type: 'string' } }),
  Event: closed({ method: ref('MethodName'), data: { type: 'array' }, docs: { type: 'string' } }, ['method', 'data']),
  FeeInfo: {
    oneOf: [
      closed({}, []),
      closed({ weight: anyJson, class: { type: 'string' }, partialFee: decimal, kind: { enum: ['fromEvent', 'preDispatch', 'postDispatch'] } }),
      closed({ error: { type: 'string' } }),
    ],
  },
  Extrinsic: closed(
    {
      method: ref('MethodName'),
      signature: { oneOf: [{ type: 'null' }, closed({ signature: hex, signer: anyJson })] },
      nonce: { oneOf: [{ type: 'null' }, decimal] },
      args: { type: 'object' },
      tip: { oneOf: [{ type: 'null' }, decimal] },
      hash,
      info: ref('FeeInfo'),
      era: { type: 'object' },
      events: { type: 'array', items: ref('Event') },
      success: { type: 'boolean' },
      paysFee: { type: 'boolean' },
      version: {
        const: 5,
        description:
          'Only on a general (v5) transaction, which sidecar cannot show: its signature comes from a signing extension (null when none signed it, the origin then being set by its authorization), nonce, tip and era from the extensions of its version',
      },
      transactionExtensionVersion: {
        type: 'integer',
        minimum: 0,
        maximum: 255,
        description: 'Only on a general transaction: the version of the extension list it carries (the metadata lists one per version)',
      },
      docs: { type: 'string' },
    },
    ['method', 'signature', 'nonce', 'args', 'tip', 'hash', 'info', 'era', 'events', 'success', 'paysFee'],
  ),
  Log: closed({ type: { type: 'string' }, index: decimal, value: anyJson }),
  XcmMessages: closed({ horizontalMessages: { type: 'array' }, downwardMessages: { type: 'array' }, upwardMessages: { type: 'array' } }),
  Block: closed(
    {
      number: decimal,
      hash,
      parentHash: hash,
      stateRoot: hash,
      extrinsicsRoot: hash,
      authorId: { oneOf: [{ type: 'null' }, { type: 'string' }] },
      logs: { type: 'array', items: ref('Log') },
      onInitialize: closed({ events: { type: 'array', items: ref('Event') } }),
      extrinsics: { type: 'array', items: ref('Extrinsic') },
      onFinalize: closed({ events: { type: 'array', items: ref('Event') } }),
      finalized: { type: 'boolean' },
      decodedXcmMsgs: ref('XcmMessages'),
    },
    // authorId: absent on the genesis block, as sidecar leaves it out there.
    ['number', 'hash', 'parentHash', 'stateRoot', 'extrinsicsRoot', 'logs', 'onInitialize', 'extrinsics', 'onFinalize'],
  ),
  BlockList: { type: 'array', items: ref('Block') },
  Header: closed({ parentHash: hash, number: decimal, stateRoot: hash, extrinsicsRoot: hash, digest: closed({ logs: { type: 'array' } }) }),
  ExtrinsicAt: closed({ at: closed({ height: decimal, hash }), extrinsics: ref('Extrinsic') }),
  RawBlock: closed({
    parentHash: hash,
    number: hex,
    stateRoot: hash,
    extrinsicRoot: hash,
    digest: closed({ logs: { type: 'array' } }),
    extrinsics: { type: 'array', items: hex },
  }),
  ParaInclusions: closed({
    at: closed({ hash, height: decimal }),
    inclusions: {
      type: 'array',
      items: closed({
        paraId: decimal,
        paraBlockNumber: decimal,
        paraBlockHash: hash,
        descriptor: closed({
          relayParent: hash,
          persistedValidationDataHash: hash,
          povHash: hash,
          erasureRoot: hash,
          paraHead: hash,
          validationCodeHash: hash,
        }),
        commitmentsHash: hash,
        coreIndex: decimal,
        groupIndex: decimal,
      }),
    },
  }),
};
