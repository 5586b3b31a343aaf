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
