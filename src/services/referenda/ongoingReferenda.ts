// The referenda being decided on the root and whitelisted-caller tracks (0 and 1), as
// sidecar's /pallets/on-going-referenda answers them: the referenda map's keys listed
// beside the block's version (bounded), then every referendum in one wave.
import type { Codec } from '@polkadot/types/types';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { readResolvedAt, type AtBlock, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { RuntimeRegistry } from '../runtimes';
import { listKeys, readKeys } from '../shared/storage/storageBatch';
import { itemPrefix, keyPartOf, readValue, storageItemOf } from '../shared/storage/storageLayout';

/** The most referenda one answer reads (every one ever made is in the map, decided or not). */
export const MAX_REFERENDA = 20_000;

const PREFIX = itemPrefix('Referenda', 'ReferendumInfoFor');

type Ongoing = Codec & { get(name: string): (Codec & { isSome?: boolean; unwrap?(): Codec }) | undefined };

export class OngoingReferenda {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  async ongoing(at: AtBlock): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const tooMany = `More than ${MAX_REFERENDA} referenda: fastcar does not read them in one answer.`;
    const [read, keys] = await wave([
      readResolvedAt(this.node, this.cache, block),
      listKeys(this.node, PREFIX, block.hash, { maxKeys: MAX_REFERENDA, tooMany }).catch((error: unknown) => error as Error),
    ] as const);
    const { registry } = await this.runtimes.get(read.version, read.hash);
    const map = storageItemOf(registry, 'Referenda', 'ReferendumInfoFor');
    if (!map) throw badRequest(`The runtime does not include the module 'api.query.referenda' at this block height: ${read.number}`);
    if (keys instanceof Error) throw keys;
    const values = await readKeys(this.node, keys, read.hash);
    const idType = map.keyTypes[0] ?? 'u32';
    const referenda = keys.flatMap((key, i) => {
      const info = readValue(registry, map, values[i] ?? null) as (Codec & { isOngoing?: boolean; asOngoing?: Ongoing }) | null;
      if (!info?.isOngoing || !info.asOngoing) return [];
      const ongoing = info.asOngoing;
      const track = ongoing.get('track')?.toString();
      if (track !== '0' && track !== '1') return [];
      const optional = (name: string) => {
        const value = ongoing.get(name);
        return value?.isSome && value.unwrap ? value.unwrap() : null;
      };
      const idBytes = keyPartOf(map, key);
      return [
        {
          // As sidecar writes it: polkadot.js's form for people (thousands separated).
          id: idBytes ? registry.createType(idType, idBytes).toHuman() : null,
          decisionDeposit: optional('decisionDeposit'),
          enactment: ongoing.get('enactment'),
          submitted: ongoing.get('submitted'),
          deciding: optional('deciding'),
        },
      ];
    });
    const body = { at: { hash: read.hash, height: String(read.number) }, referenda };
    return { json: JSON.stringify(toSidecarJson(body)), hash: read.hash, final: read.final };
  }
}
