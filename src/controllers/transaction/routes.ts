// The `/transaction` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { closed, decimal, hash, ref } from '../../http/schemas';
import { AT_PARAMETER, AT_SCHEMA } from '../params';

export type TransactionQueryName = 'at' | 'noMeta' | 'metadata';

export const TRANSACTION_PARAMETERS: Record<TransactionQueryName, QueryParameter> = {
  at: AT_PARAMETER,
  noMeta: { type: 'string', description: "Accepted for older clients, and without effect: the metadata is left out unless `metadata` asks for it (as sidecar 20 does)." },
  metadata: { type: 'string', pattern: '^(json|scale)$', description: 'Add the runtime\'s metadata: `scale` (SCALE as hex) or `json` (decoded).' },
};

const ERRORS = { 400: 'A malformed `at`, `metadata` or version; a height beyond the head; a metadata version the runtime does not offer', 404: 'No block with that hash' };

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
} as const satisfies Record<string, RouteSpec<TransactionQueryName>>;

export type TransactionRouteName = keyof typeof TRANSACTION_ROUTES;

export const TRANSACTION_FAMILY: RouteFamily<TransactionRouteName, TransactionQueryName> = {
  tag: 'transaction',
  routes: TRANSACTION_ROUTES,
  parameters: TRANSACTION_PARAMETERS,
  pathParameters: { metadataVersion: { description: 'A metadata version as `vN` (`v14`, `v15`, `v16`)', schema: { type: 'string', pattern: '^[vV][0-9]+$' } } },
  schemas: {
    At: AT_SCHEMA,
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
