// How the routes that show metadata (/transaction/material, /runtime/metadata) read what
// the client asks of it, with sidecar's messages.
import { badRequest } from '../errors';
import type { MetadataForm } from '../services/metadata';
import { isUInt } from './params';

/** `metadata`: absent, or a form sidecar knows (its message where it answers 500). */
export function metadataFormOf(raw: unknown): MetadataForm | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'json' || raw === 'scale') return raw;
  throw badRequest('Invalid inputted value for the `metadata` query param. Options are `scale` or `json`.');
}

/** `vN`: the number sidecar reads from it, with its messages. */
export function metadataVersionOf(raw: unknown): number {
  const text = typeof raw === 'string' ? raw : '';
  const digits = text.slice(1);
  const version = Number(digits);
  if (!isUInt(version)) throw badRequest(`Version ${digits} of metadata provided is not a number.`);
  if (!/^[vV][0-9]+$/.test(text)) {
    throw badRequest(`${text} input is not of the expected 'vX' format, where 'X' represents the version number (examples: 'v14', 'v15').`);
  }
  return version;
}
