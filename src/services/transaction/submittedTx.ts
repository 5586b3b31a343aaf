// The `tx` of a POST body as bytes the runtime can read: hex checked, then the
// extrinsic envelope decoded with the runtime's own registry, so a hex that is not
// an extrinsic is refused before the node is asked anything about it.
import type { TypeRegistry } from '@polkadot/types';
import { compactFromU8aLim, hexToU8a } from '@polkadot/util';

import { badRequest } from '../../errors';

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})+$/;

/** `tx` as the body gives it: a non-empty 0x hex string of whole bytes, else a 400 saying what is wrong. */
export function txHexOf(body: unknown): `0x${string}` {
  const tx = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).tx : undefined;
  if (tx === undefined || tx === null || tx === '') throw badRequest('Missing field `tx` on request body.');
  if (typeof tx !== 'string' || !HEX_BYTES.test(tx)) throw badRequest('The field `tx` must be a 0x-prefixed hex string of whole bytes.');
  return tx as `0x${string}`;
}

/**
 * Why `bytes` is not one whole extrinsic of this runtime, or undefined when it is. Trailing
 * bytes are refused: the node would read a different transaction from the one sent.
 */
export function notAnExtrinsic(registry: TypeRegistry, bytes: Uint8Array): string | undefined {
  try {
    const extrinsic = registry.createType('Extrinsic', bytes);
    if (extrinsic.encodedLength !== bytes.length) {
      return `The extrinsic takes ${extrinsic.encodedLength} bytes of the ${bytes.length} sent: the rest is not part of it.`;
    }
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export const bytesOf = (tx: `0x${string}`) => hexToU8a(tx);

/**
 * Whether the bytes' own length prefix disagrees with how many there are: then no runtime reads
 * them as one extrinsic, and a refusal made with any runtime's registry holds for the block's.
 */
export function lengthPrefixDisagrees(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return true;
  try {
    const [offset, length] = compactFromU8aLim(bytes);
    return offset + length !== bytes.length;
  } catch {
    // A prefix past 48 bits: far more bytes than any body may carry.
    return true;
  }
}
