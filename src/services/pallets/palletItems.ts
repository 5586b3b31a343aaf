// A pallet's items of one kind (storage, constants, errors, events, calls) as sidecar
// lists them: their names, and each one's metadata in sidecar's JSON. A runtime's
// metadata never changes, so each list is built the first time it is asked for and kept
// with the runtime's registry; the JSON text of a whole list is kept too, so a list
// answer is the block's `at` put before text already made.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { decorateErrors, decorateEvents, decorateExtrinsics } from '@polkadot/types/metadata/decorate';

import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import type { FoundPallet, PalletField } from './palletLookup';

export interface PalletItems {
  /** As sidecar names them: errors and events as declared, calls camel-cased, storage and constants as declared. */
  names: string[];
  /** Each item's metadata JSON, in the same order. */
  metadata: JsonValue[];
  /** The lists as JSON text, `items` of a list answer. */
  namesJson: string;
  metadataJson: string;
}

type Decorated = Record<string, Record<string, { meta: Codec }>>;

/** Lists of one runtime, by `field:palletIndex`; and its decorated errors, events and calls, made on first use. */
interface RuntimeLists {
  lists: Map<string, PalletItems>;
  decorated: Partial<Record<'errors' | 'events' | 'calls', Decorated>>;
}

const byRuntime = new WeakMap<TypeRegistry, RuntimeLists>();

function listsOf(registry: TypeRegistry): RuntimeLists {
  let kept = byRuntime.get(registry);
  if (!kept) {
    kept = { lists: new Map(), decorated: {} };
    byRuntime.set(registry, kept);
  }
  return kept;
}

/** Sidecar's reading of a storage entry: its docs one string, lines joined by newlines. */
function storageEntryJson(entry: Codec & { docs: { toString(): string }[] }): JsonValue {
  const json = toSidecarJson(entry) as Record<string, JsonValue>;
  return { ...json, docs: entry.docs.map((line) => line.toString()).join('\n') };
}

/**
 * Errors, events and calls as polkadot.js decorates them (what sidecar lists): each
 * variant with its argument types; calls keyed by their camel-cased names.
 */
function decoratedOf(registry: TypeRegistry, field: 'errors' | 'events' | 'calls'): Decorated {
  const kept = listsOf(registry).decorated;
  const made = kept[field];
  if (made) return made;
  // The version only picks where a call's or event's pallet index comes from (for matching
  // and call bytes), never the metadata shown: any version past 12 will do.
  const decorate = field === 'errors' ? decorateErrors : field === 'events' ? decorateEvents : decorateExtrinsics;
  const decorated = decorate(registry, registry.metadata, 14) as unknown as Decorated;
  kept[field] = decorated;
  return decorated;
}

function build(registry: TypeRegistry, pallet: FoundPallet, field: PalletField): { names: string[]; metadata: JsonValue[] } {
  const { meta } = pallet;
  if (field === 'storage') {
    const entries = meta.storage.isSome ? [...meta.storage.unwrap().items] : [];
    return { names: entries.map((entry) => entry.name.toString()), metadata: entries.map(storageEntryJson) };
  }
  if (field === 'constants') {
    return { names: meta.constants.map((constant) => constant.name.toString()), metadata: meta.constants.map((constant) => toSidecarJson(constant)) };
  }
  const section = decoratedOf(registry, field)[pallet.name] ?? {};
  const entries = Object.entries(section);
  return { names: entries.map(([name]) => name), metadata: entries.map(([, item]) => toSidecarJson(item.meta)) };
}

export function palletItems(registry: TypeRegistry, pallet: FoundPallet, field: PalletField): PalletItems {
  const { lists } = listsOf(registry);
  const key = `${field}:${pallet.index}`;
  const kept = lists.get(key);
  if (kept) return kept;
  const { names, metadata } = build(registry, pallet, field);
  const items = { names, metadata, namesJson: JSON.stringify(names), metadataJson: JSON.stringify(metadata) };
  lists.set(key, items);
  return items;
}
