// The pieces route families write their answers' JSON Schemas with. Objects are
// closed (no properties beyond those listed), so a field added or renamed without
// documenting it fails the schema test against real answers (test/docs.test.ts).
import type { Schema } from './routes';

export const hex = { type: 'string', pattern: '^0x[0-9a-fA-F]*$' };
export const hash = { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' };
export const decimal = { type: 'string', pattern: '^[0-9]+$' };
export const anyJson = {};

export const closed = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Fields every useRcBlock item has after the answer's own. */
const RELAY_ITEM_FIELDS = { rcBlockHash: hash, rcBlockNumber: decimal, ahTimestamp: { type: 'string', pattern: '^[0-9]*$' } };

/** A route's answer at a block, or with useRcBlock its list (or object) of answers per included block. */
export function perRelayBlock(name: string, fields: Record<string, unknown>, required: string[] = Object.keys(fields)) {
  return {
    [name]: { oneOf: [ref(`${name}At`), ref(`${name}ByRelayBlock`), ref(`${name}InRelayBlock`)] },
    [`${name}At`]: closed(fields, required),
    [`${name}ByRelayBlock`]: {
      type: 'array',
      items: ref(`${name}AtRelayBlock`),
      description: 'With useRcBlock: one answer per block the relay block included',
    },
    [`${name}InRelayBlock`]: closed({
      rcBlock: closed({ hash, parentHash: hash, number: decimal }),
      parachainDataPerBlock: { type: 'array', items: ref(`${name}AtRelayBlock`) },
    }),
    [`${name}AtRelayBlock`]: closed({ ...fields, ...RELAY_ITEM_FIELDS }, [...required, 'rcBlockHash', 'rcBlockNumber']),
  };
}
