// The body of POST /transaction/metadata-blob, read whole before the node is asked: an
// extrinsic (`tx`, with its additional signed data optionally) or its three parts, and `at`.
import { badRequest } from '../../errors';
import type { AtBlock } from '../../services/shared/at/blockAt';
import type { ProofSubject } from '../../services/transaction/metadataProofs';
import { parseAt } from '../params';

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

const EITHER = 'Give either `tx` (an extrinsic) or `callData` with `includedInExtrinsic` and `includedInSignedData`.';

/** A field given (not absent, null or ''): 0x hex of whole bytes, empty allowed where `empty`; else a 400 naming it. */
function hexField(fields: Record<string, unknown>, name: string, empty: boolean): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !HEX_BYTES.test(value) || (!empty && value === '0x')) {
    throw badRequest(`The field \`${name}\` must be a 0x-prefixed hex string of whole bytes${empty ? '' : ' (not empty)'}.`);
  }
  return value;
}

/** `at` as a height or hash (a JSON number is read as a height); the finalized head when absent. */
function atOf(raw: unknown): AtBlock {
  if (raw === undefined || raw === null || raw === '') return 'finalized';
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return parseAt(String(raw));
  if (typeof raw !== 'string') throw badRequest('The field `at` must be a block height or a block hash.');
  return parseAt(raw);
}

export function metadataBlobBodyOf(body: unknown): { at: AtBlock; subject: ProofSubject } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest(`The body must be a JSON object. ${EITHER}`);
  const fields = body as Record<string, unknown>;
  const at = atOf(fields.at);
  const tx = hexField(fields, 'tx', false);
  const txAdditionalSigned = hexField(fields, 'txAdditionalSigned', true);
  const callData = hexField(fields, 'callData', false);
  const includedInExtrinsic = hexField(fields, 'includedInExtrinsic', true);
  const includedInSignedData = hexField(fields, 'includedInSignedData', true);
  if (tx !== undefined) {
    if (callData !== undefined) throw badRequest(`Both \`tx\` and \`callData\` were given. ${EITHER}`);
    return { at, subject: txAdditionalSigned === undefined ? { tx } : { tx, txAdditionalSigned } };
  }
  if (callData === undefined) throw badRequest(`Missing field \`tx\` or \`callData\` on request body. ${EITHER}`);
  if (includedInExtrinsic === undefined || includedInSignedData === undefined) {
    throw badRequest(`With \`callData\`, both \`includedInExtrinsic\` and \`includedInSignedData\` are needed (\`0x\` when empty). ${EITHER}`);
  }
  return { at, subject: { callData, includedInExtrinsic, includedInSignedData } };
}
