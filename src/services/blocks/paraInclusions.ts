// A relay chain block's parachain inclusions: the `paraInclusion.CandidateIncluded`
// events, each naming a parachain block (its header travels as the event's head
// data) and the candidate that carried it. Sidecar's `/blocks/{id}/para-inclusions`.
import { blake2AsU8a } from '@polkadot/util-crypto';

import { bytesOfHex, hexOfBytes } from '../../decode/hex';
import type { JsonValue } from '../../decode/json';
import { ByteReader } from '../../decode/reader';
import type { DecodedEvent } from '../../decode/runtimeCodecs';

export interface ParaInclusion {
  paraId: string;
  paraBlockNumber: string;
  paraBlockHash: string;
  descriptor: {
    relayParent: string;
    persistedValidationDataHash: string;
    povHash: string;
    erasureRoot: string;
    paraHead: string;
    validationCodeHash: string;
  };
  commitmentsHash: string;
  coreIndex: string;
  groupIndex: string;
}

type JsonObject = { [key: string]: JsonValue };

const isObject = (value: JsonValue | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/** A parachain header's number and hash, from the head data (the SCALE-encoded header). */
function paraHeadOf(headDataHex: string): { number: number; hash: string } | undefined {
  const bytes = bytesOfHex(headDataHex);
  try {
    const reader = new ByteReader(bytes, 32); // past the parent hash
    return { number: reader.compactNumber(), hash: hexOfBytes(blake2AsU8a(bytes, 256)) };
  } catch {
    return undefined;
  }
}

/** The inclusions a block's events report, ordered by parachain id (as sidecar orders them). */
export function inclusionsOf(events: DecodedEvent[]): ParaInclusion[] {
  const inclusions: ParaInclusion[] = [];
  for (const event of events) {
    if (event.pallet !== 'paraInclusion' || event.method !== 'CandidateIncluded') continue;
    const [receipt, headData, coreIndex, groupIndex] = event.data;
    if (!isObject(receipt) || !isObject(receipt.descriptor) || typeof headData !== 'string') continue;
    const head = paraHeadOf(headData);
    if (!head) continue;
    const { descriptor } = receipt;
    inclusions.push({
      paraId: text(descriptor.paraId),
      paraBlockNumber: String(head.number),
      paraBlockHash: head.hash,
      descriptor: {
        relayParent: text(descriptor.relayParent),
        persistedValidationDataHash: text(descriptor.persistedValidationDataHash),
        povHash: text(descriptor.povHash),
        erasureRoot: text(descriptor.erasureRoot),
        paraHead: text(descriptor.paraHead),
        validationCodeHash: text(descriptor.validationCodeHash),
      },
      commitmentsHash: text(receipt.commitmentsHash),
      coreIndex: text(coreIndex),
      groupIndex: text(groupIndex),
    });
  }
  return inclusions.sort((a, b) => Number(a.paraId) - Number(b.paraId));
}
