// The `/transaction` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { MAX_JSON_BODY_BYTES } from '../../http/requestBody';
import { closed, decimal, hash, hex, ref } from '../../http/schemas';
import { AT_PARAMETER, AT_SCHEMA } from '../params';

export type TransactionQueryName = 'at' | 'noMeta' | 'metadata';

export const TRANSACTION_PARAMETERS: Record<TransactionQueryName, QueryParameter> = {
  at: AT_PARAMETER,
  noMeta: {
    type: 'string',
    description: 'Accepted for older clients, and without effect: the metadata is left out unless `metadata` asks for it (as sidecar 20 does).',
  },
  metadata: { type: 'string', pattern: '^(json|scale)$', description: "Add the runtime's metadata: `scale` (SCALE as hex) or `json` (decoded)." },
};

const ERRORS = {
  400: 'A malformed `at`, `metadata` or version; a height beyond the head; a metadata version the runtime does not offer',
  404: 'No block with that hash',
};

const POST_BODY_ERRORS = {
  413: `A body larger than ${MAX_JSON_BODY_BYTES} bytes`,
  415: 'A body not sent as Content-Type: application/json',
};

export const TRANSACTION_ROUTES = {
  material: {
    path: '/transaction/material',
    summary: 'What a transaction is built from offline: genesis hash, chain name, spec and transaction versions (and the metadata if asked)',
    query: ['at', 'noMeta', 'metadata'],
    response: 'TransactionMaterial',
    cacheable: true,
    errors: ERRORS,
  },
  materialAtVersion: {
    path: '/transaction/material/:metadataVersion',
    summary: 'The same, with the metadata at one of the versions the runtime offers (JSON unless `metadata=scale`)',
    query: ['at', 'metadata'],
    response: 'TransactionMaterial',
    cacheable: true,
    errors: ERRORS,
  },
  feeEstimate: {
    path: '/transaction/fee-estimate',
    method: 'POST',
    summary: "A signed extrinsic's fee estimate at the finalized head (the runtime's TransactionPaymentApi_query_info)",
    query: [],
    requestBody: 'TransactionBody',
    response: 'TransactionFeeEstimate',
    errors: {
      400:
        'A body without a hex `tx`, not JSON, or whose `tx` is not an extrinsic of the runtime (TransactionError, the node not asked); ' +
        'the runtime refusing it',
    },
    otherErrors: POST_BODY_ERRORS,
  },
  dryRun: {
    path: '/transaction/dry-run',
    method: 'POST',
    summary:
      "A call dry-run by a sender (the runtime's DryRunApi_dry_run_call) at `at` (the finalized head when absent), " +
      "its results in the chain's safe XCM version",
    query: [],
    requestBody: 'DryRunBody',
    response: 'TransactionDryRun',
    errors: {
      400:
        'A body without a hex `tx` or a `senderAddress`, not JSON, a malformed `at` or `xcmVersion`; ' +
        'a call or sender the runtime cannot read (TransactionError, the node not asked); a runtime without DryRunApi',
      404: 'No block with the hash `at` names',
    },
    otherErrors: POST_BODY_ERRORS,
  },
  submit: {
    path: '/transaction',
    method: 'POST',
    summary: "Submits a signed extrinsic to the node's pool, once (never sent again): its hash",
    query: [],
    requestBody: 'TransactionBody',
    response: 'TransactionHash',
    errors: {
      400:
        "A body without a hex `tx`, not JSON, or whose `tx` is not an extrinsic (the node not asked); the node's refusal, " +
        'named in `reason` (badProof, stale, future, alreadyImported, temporarilyBanned, poolFull, payment, ...)',
    },
    unavailable:
      'The node is unavailable; if it went away with the submission in flight, the transaction may or may not have been submitted ' + '(the message says so)',
    otherErrors: { ...POST_BODY_ERRORS, 504: 'The node did not confirm in time: the transaction may or may not have been submitted' },
  },
  metadataBlob: {
    path: '/transaction/metadata-blob',
    method: 'POST',
    summary:
      "RFC-78 for hardware signers: the metadata hash the runtime's CheckMetadataHash checks, and the proof of the types a transaction " +
      'uses, at `at` (the finalized head when absent)',
    query: [],
    requestBody: 'MetadataBlobBody',
    response: 'TransactionMetadataBlob',
    errors: {
      400:
        'A body without `tx` or all of `callData`, `includedInExtrinsic` and `includedInSignedData`, a field not 0x hex, not JSON, ' +
        "a malformed `at`; parts this runtime's metadata cannot read; a runtime without metadata V15",
      404: 'No block with the hash `at` names',
    },
    otherErrors: POST_BODY_ERRORS,
  },
} as const satisfies Record<string, RouteSpec<TransactionQueryName>>;

export type TransactionRouteName = keyof typeof TRANSACTION_ROUTES;

export const TRANSACTION_FAMILY: RouteFamily<TransactionRouteName, TransactionQueryName> = {
  tag: 'transaction',
  formatVersion: 1,
  routes: TRANSACTION_ROUTES,
  parameters: TRANSACTION_PARAMETERS,
  pathParameters: { metadataVersion: { description: 'A metadata version as `vN` (`v14`, `v15`, `v16`)', schema: { type: 'string', pattern: '^[vV][0-9]+$' } } },
  schemas: {
    At: AT_SCHEMA,
    TransactionBody: closed({ tx: { ...hex, description: 'A signed extrinsic, SCALE-encoded, as 0x hex' } }),
    TransactionHash: closed({ hash }),
    DryRunBody: closed(
      {
        tx: { ...hex, description: 'A call, SCALE-encoded, as 0x hex (not a signed extrinsic)' },
        senderAddress: { type: 'string', description: 'The account the call is dry-run as (SS58)' },
        at: { type: 'string', description: 'A height or block hash; the finalized head when absent (or not a string)' },
        xcmVersion: { type: ['integer', 'string'], description: "The XCM version of the run's results; the chain's safe version when absent or 0" },
      },
      ['tx', 'senderAddress'],
    ),
    TransactionDryRun: closed({
      at: ref('At'),
      result: closed({
        resultType: { enum: ['DispatchOutcome', 'DispatchError', 'InvalidTransaction'] },
        result: { description: 'DispatchOutcome: the post-dispatch info; DispatchError: `{postInfo, error}`; InvalidTransaction: the XCM dry-run error' },
      }),
    }),
    MetadataBlobBody: closed(
      {
        tx: { ...hex, description: 'An extrinsic, signed or not, SCALE-encoded, as 0x hex (or give its parts below)' },
        txAdditionalSigned: { ...hex, description: "With `tx`: its signed extensions' additional signed data, as 0x hex" },
        callData: { ...hex, description: 'The call, SCALE-encoded without a length prefix, as 0x hex' },
        includedInExtrinsic: { ...hex, description: "The signed extensions' extra data, concatenated, as 0x hex" },
        includedInSignedData: { ...hex, description: "The signed extensions' additional signed data, concatenated, as 0x hex" },
        at: { type: 'string', description: 'A height or block hash; the finalized head when absent' },
      },
      [],
    ),
    TransactionMetadataBlob: closed({
      at: ref('At'),
      metadataHash: { ...hash, description: "The metadata's merkle root (RFC-78), the value CheckMetadataHash's mode 1 signs" },
      metadataBlob: { ...hex, description: 'The SCALE-encoded proof: the types the transaction uses, their merkle proof, and the extra info' },
      specVersion: decimal,
      specName: { type: 'string' },
      base58Prefix: decimal,
      decimals: decimal,
      tokenSymbol: { type: 'string' },
    }),
    TransactionFeeEstimate: closed({
      weight: { oneOf: [decimal, closed({ refTime: decimal, proofSize: decimal })] },
      class: { type: 'string' },
      partialFee: decimal,
    }),
    TransactionMaterial: closed(
      {
        at: ref('At'),
        genesisHash: hash,
        chainName: { type: 'string' },
        specName: { type: 'string' },
        specVersion: decimal,
        txVersion: decimal,
        metadata: { description: 'With `metadata`: hex for `scale`, the decoded metadata for `json`' },
      },
      ['at', 'genesisHash', 'chainName', 'specName', 'specVersion', 'txVersion'],
    ),
  },
};
