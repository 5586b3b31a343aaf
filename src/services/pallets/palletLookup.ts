// A pallet, and one of its items, found by the id a client wrote, as sidecar finds them:
// the id camel-cased, then a whole number is a pallet index and anything else a name,
// compared without case; only pallets that declare the kind of item asked for count.
// Sidecar answers a missing item with a 500; it is the client's mistake, so a 400 here.
import type { TypeRegistry } from '@polkadot/types';
import type { PalletMetadataLatest } from '@polkadot/types/interfaces';
import { stringCamelCase } from '@polkadot/util';

import { badRequest } from '../../errors';

/** The kinds of item a pallet declares, named as the metadata (and sidecar's messages) name them. */
export type PalletField = 'storage' | 'constants' | 'errors' | 'events' | 'calls';

export interface FoundPallet {
  meta: PalletMetadataLatest;
  /** The pallet's index as sidecar reports it. */
  index: number;
  /** Its name as sidecar reports it (camel case). */
  name: string;
}

/** Old metadata (before v12) wrote 255 for "no index": the pallet's place in the list stands for it. */
const NO_INDEX = 255;

function declares(pallet: PalletMetadataLatest, field: PalletField): boolean {
  const declared = pallet[field];
  return !declared.isEmpty;
}

/** A pallet id as sidecar reads it: camel-cased, then a number when it is a whole one. */
export function palletIdOf(raw: string): string | number {
  const id = stringCamelCase(raw);
  const asNumber = Number(id);
  return Number.isInteger(asNumber) ? asNumber : id;
}

export function findPallet(registry: TypeRegistry, raw: string, field: PalletField): FoundPallet {
  const id = palletIdOf(raw);
  const shown = stringCamelCase(raw);
  const pallets = registry.metadata.pallets;
  const indexAt = (pallet: PalletMetadataLatest, place: number) => (pallet.index.toNumber() === NO_INDEX ? place : pallet.index.toNumber());
  const matches = (pallet: PalletMetadataLatest, place: number) =>
    typeof id === 'number' ? indexAt(pallet, place) === id : pallet.name.toString().toLowerCase() === id.toLowerCase();
  if (!pallets.some(matches)) throw badRequest(`"${shown}" was not recognized as a queryable pallet.`);
  const withField = pallets.filter((pallet) => declares(pallet, field));
  const place = withField.findIndex(matches);
  const meta = withField[place];
  if (!meta) throw badRequest(`no queryable ${field} items found for palletId "${shown}"`);
  return { meta, index: indexAt(meta, place), name: stringCamelCase(meta.name) };
}

/** The item's name as the client wrote it, camel-cased: what the answer echoes. */
export const itemIdOf = (raw: string) => stringCamelCase(raw);

/** The position of the item named `raw` among `names` (calls compare their camel-cased names, as sidecar), or sidecar's message. */
export function findItem(names: readonly string[], raw: string, field: PalletField): number {
  const wanted = itemIdOf(raw).toLowerCase();
  const spelled = (name: string) => (field === 'calls' ? stringCamelCase(name) : name).toLowerCase();
  const found = names.findIndex((name) => spelled(name) === wanted);
  if (found === -1) {
    throw badRequest(
      `Could not find ${field} item ("${itemIdOf(raw)}") in metadata. ${field} item names are expected to be in camel case, e.g. 'storageItemId'`,
    );
  }
  return found;
}
