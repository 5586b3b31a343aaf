// The `/blocks` family's own parameters: extrinsic indexes, ranges and paraId, with
// sidecar's messages (block ids are every family's: ../params.ts; useRcBlockFormat
// every relayable family's: ../relayAnswer.ts).
import { badRequest } from '../../errors';
import { isUInt, MAX_BLOCKS_PER_REQUEST } from '../params';

export function parseIndex(raw: string): number {
  const index = Number(raw);
  if (raw.trim() === '' || !isUInt(index)) throw badRequest('`exstrinsicIndex` path param is not a number');
  return index;
}

export function parseRange(raw: unknown): number[] {
  if (raw === undefined || raw === '') throw badRequest('range query parameter must be inputted.');
  if (typeof raw !== 'string') throw badRequest('Incorrect range format. Expected example: 0-999');
  const parts = raw.split('-');
  if (parts.length !== 2) throw badRequest('Incorrect range format. Expected example: 0-999');
  const min = Number(parts[0]);
  const max = Number(parts[1]);
  if (!isUInt(min)) throw badRequest('Inputted min value for range must be an unsigned integer.');
  if (!isUInt(max) || max === 0) throw badRequest('Inputted max value for range must be an unsigned non zero integer.');
  if (min >= max) throw badRequest('Inputted min value cannot be greater than or equal to the max value.');
  if (max - min > MAX_BLOCKS_PER_REQUEST) throw badRequest(`Inputted range is greater than the ${MAX_BLOCKS_PER_REQUEST} range limit.`);
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

/** `paraId`: a whole number, as sidecar demands; absent when not given. */
export function parseParaId(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' ? Number(raw) : NaN;
  if (!isUInt(value)) throw badRequest('paraId must be an integer');
  return value;
}
