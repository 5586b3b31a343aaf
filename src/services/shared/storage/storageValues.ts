// Plain storage values and constants of a runtime, named by pallet and item, read at a
// block in one wave once `at` is resolved (keysAtBlock.ts guesses the keys with the
// newest runtime): what routes that read a handful of a pallet's values share.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';

import type { TieredCache } from '../../../cache/tieredCache';
import type { NodeClient } from '../../../rpc/nodeClient';
import type { ReadAt, ResolvedAt } from '../at/blockAt';
import { readKeysAt } from './keysAtBlock';
import type { Runtime, RuntimeRegistry } from '../../runtimes';
import { keyOf, readValue, storageItemOf } from './storageLayout';

/** `[pallet, item]`, as the metadata names them. */
export type ItemName = readonly [string, string];

export interface ValuesRead {
  read: ReadAt;
  runtime: Runtime;
  /** Per item asked: its value (null: an optional item with nothing stored), or undefined where the runtime has no such item. */
  values: (Codec | null | undefined)[];
}

export async function readValuesAt(
  node: NodeClient,
  cache: TieredCache,
  runtimes: RuntimeRegistry,
  block: ResolvedAt,
  names: readonly ItemName[],
): Promise<ValuesRead> {
  const present = (registry: TypeRegistry) => names.map(([pallet, item]) => storageItemOf(registry, pallet, item)).filter((map) => map !== null);
  const { read, runtime, values } = await readKeysAt(node, cache, runtimes, block, ({ registry }) => present(registry).map((map) => keyOf(map, [])));
  let next = 0;
  const decoded = names.map(([pallet, item]) => {
    const map = storageItemOf(runtime.registry, pallet, item);
    return map ? readValue(runtime.registry, map, values[next++] ?? null) : undefined;
  });
  return { read, runtime, values: decoded };
}

/** A constant of the runtime's metadata, decoded; undefined when it has none of that name. */
export function constantOf(registry: TypeRegistry, palletName: string, name: string): Codec | undefined {
  const pallet = registry.metadata.pallets.find((one) => one.name.eq(palletName));
  const constant = pallet?.constants.find((one) => one.name.eq(name));
  return constant ? registry.createType(registry.createLookupType(constant.type), constant.value.toU8a(true)) : undefined;
}
