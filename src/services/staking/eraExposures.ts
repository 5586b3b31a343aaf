// What one staker was exposed to in each of a batch of eras: the validators it backed
// (itself counted when it validated), its stake behind each, the era's reward and
// points. Sidecar walks the era's whole exposure map for this (a nominator's place in it
// is known only from the pages), and so does this, for every era of the batch at once:
// the eras' pages listed in one wave, their values and the eras' rewards and points read
// in the next, once for all the requests asking for the same eras at once. A closed era's
// facts never change: kept (per chain, staker and era) when read at a final block, so the
// next request reads none of it.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { u8aEq, u8aToHex } from '@polkadot/util';

import type { TieredCache } from '../../cache/tieredCache';
import { ApiError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { listKeys, readKeys } from '../shared/storage/storageBatch';
import { storageItemOf, type StorageMap } from '../shared/storage/storageLayout';
import { decoded, eraPrefix, fieldOf, listOf, stakingKey } from './stakingCodecs';
import { bigintOf } from '../../decode/codecValues';

/** The most exposure pages one era may have for a payout to be worked out (Polkadot has about a thousand). */
export const MAX_EXPOSURE_PAGES_PER_ERA = 10_000;
/** Exposure pages read in one call (a page holds up to 512 nominators). */
const PAGES_PER_CALL = 64;

/** One validator the staker backed in an era: one per page entry naming the staker, as sidecar counts them. */
export interface Backing {
  validator: Hex;
  /** The staker's stake on that page (undefined for the validator itself: its own stake is in the era's overview). */
  stake?: string;
  /** The exposure page that names the staker (undefined: an unpaged exposure, or the validator itself). */
  page?: number;
  /** From an unpaged (clipped) exposure: its total and the validator's own stake. */
  clipped?: { total: string; own: string };
}

export interface EraExposure {
  era: number;
  /** The era's payout to all validators; null: none recorded. */
  reward: string | null;
  totalPoints: string;
  /** Each backed validator's points, by its account hex. */
  points: Record<string, string>;
  backings: Backing[];
}

interface Page {
  validator: Uint8Array;
  page?: number;
  others: [Uint8Array, string][];
  clipped?: { total: string; own: string };
}

/** The eras' storage as read from the node, the same for every staker asked about. */
interface EraStorage {
  chosen: ('clipped' | 'paged')[];
  /** Per era, the keys of the exposure map chosen for it. */
  pageKeys: Hex[][];
  /** Every era's page values, in the order of its keys, era after era. */
  pageValues: (Hex | null)[];
  /** Per era, its reward points then its validators' reward. */
  eraValues: (Hex | null)[];
}

interface SharedRead {
  storage: Promise<EraStorage>;
  /** The signals of every request waiting on it: the read goes on while any of them stays. */
  waiting: Set<AbortSignal>;
}

/**
 * The eras' exposure pages read once for every request that asks for the same eras at the
 * same block while the read is on: a dashboard asking ten stakers' payouts at once costs
 * the node one read of each era (an era's pages are megabytes on Polkadot), not ten. Kept
 * per chain, for as long as the read runs.
 */
export class SharedEraReads {
  private readonly running = new Map<string, SharedRead>();

  /** The read for `key`: joined if running, else started on `node` (the first asker's view of it). */
  join(key: string, node: NodeClient, signal: AbortSignal, read: (stillWanted: () => boolean) => Promise<EraStorage>): Promise<EraStorage> {
    const running = this.running.get(key);
    if (running) {
      running.waiting.add(signal);
      return node.waitFor(running.storage).catch((error: unknown) => {
        // Everyone else left and stopped it as this request joined: read again for this one.
        if (error instanceof ApiError && error.status === 499 && !signal.aborted) return this.join(key, node, signal, read);
        throw error;
      });
    }
    const waiting = new Set([signal]);
    const storage: Promise<EraStorage> = read(() => [...waiting].some((one) => !one.aborted)).finally(() => {
      if (this.running.get(key)?.storage === storage) this.running.delete(key);
    });
    this.running.set(key, { storage, waiting });
    return storage;
  }
}

export class EraExposures {
  constructor(
    private readonly node: NodeClient,
    private readonly cache: TieredCache,
    private readonly chainKey: string,
    private readonly shared: SharedEraReads,
  ) {}

  /** The eras' facts for `staker`, read at `hash` (kept when `final`); no wave started once `signal` aborts. */
  async read(registry: TypeRegistry, hash: Hex, final: boolean, staker: Uint8Array, eras: number[], signal: AbortSignal): Promise<EraExposure[]> {
    const keyOfEra = (era: number) => `staking-era:${this.chainKey}:${u8aToHex(staker)}:${era}`;
    const kept = await Promise.all(eras.map(async (era) => (final ? await this.cache.get(keyOfEra(era)) : undefined)));
    const missing = eras.filter((_, i) => kept[i] === undefined);
    const fresh = missing.length ? await this.readEras(registry, hash, staker, missing, signal) : [];
    if (final) for (const exposure of fresh) this.cache.set(keyOfEra(exposure.era), JSON.stringify(exposure));
    const byEra = new Map(fresh.map((exposure) => [exposure.era, exposure]));
    return eras.map((era, i) => {
      const stored = kept[i];
      return stored === undefined ? (byEra.get(era) as EraExposure) : (JSON.parse(stored) as EraExposure);
    });
  }

  private async readEras(registry: TypeRegistry, hash: Hex, staker: Uint8Array, eras: number[], signal: AbortSignal): Promise<EraExposure[]> {
    const paged = storageItemOf(registry, 'Staking', 'ErasStakersPaged');
    const clipped = storageItemOf(registry, 'Staking', 'ErasStakersClipped');
    const points = storageItemOf(registry, 'Staking', 'ErasRewardPoints') as StorageMap;
    const reward = storageItemOf(registry, 'Staking', 'ErasValidatorReward') as StorageMap;
    const storage = await this.shared.join(`${hash}:${eras.join(',')}`, this.node, signal, (stillWanted) =>
      this.readStorage(registry, hash, eras, { paged, clipped, points, reward }, stillWanted),
    );
    throwIfClientLeft(signal);
    const { chosen, pageKeys, pageValues, eraValues } = storage;
    let next = 0;
    const stakerHex = u8aToHex(staker).slice(2);
    return eras.map((era, i) => {
      const kind = chosen[i];
      const map = (kind === 'clipped' ? clipped : paged) as StorageMap;
      const layout = keyLayout(registry, map);
      const pages = (pageKeys[i] ?? []).map((key) => readPage(registry, map, layout, key, pageValues[next++] ?? null, kind === 'clipped', stakerHex));
      const eraPoints = decoded(registry, points, eraValues[2 * i] ?? null);
      // An optional item: nothing stored reads as null, a stored reward as the balance itself.
      const eraReward = decoded(registry, reward, eraValues[2 * i + 1] ?? null);
      return {
        era,
        reward: eraReward ? bigintOf(eraReward).toString() : null,
        totalPoints: bigintOf(fieldOf(eraPoints, 'total')).toString(),
        points: pointsByValidator(fieldOf(eraPoints, 'individual')),
        backings: backingsOf(staker, pages),
      };
    });
  }

  /** The eras' pages listed in one wave (with their points and rewards), their values read in the next unless every asker left. */
  private async readStorage(
    registry: TypeRegistry,
    hash: Hex,
    eras: number[],
    maps: { paged: StorageMap | null; clipped: StorageMap | null; points: StorageMap; reward: StorageMap },
    stillWanted: () => boolean,
  ): Promise<EraStorage> {
    const bound = (era: number) => ({
      maxKeys: MAX_EXPOSURE_PAGES_PER_ERA,
      tooMany: `Era ${era} has more than ${MAX_EXPOSURE_PAGES_PER_ERA} exposure pages: fastcar does not work out payouts over it.`,
    });
    const list = (map: StorageMap | null) =>
      Promise.all(eras.map((era) => (map ? listKeys(this.node, eraPrefix(registry, map, era), hash, bound(era)) : Promise.resolve([] as Hex[]))));
    const eraKeys = eras.flatMap((era) => [stakingKey(registry, maps.points, [era]), stakingKey(registry, maps.reward, [era])]);
    const [pagedKeys, clippedKeys, eraValues] = await wave([list(maps.paged), list(maps.clipped), readKeys(this.node, eraKeys, hash)] as const);
    if (!stillWanted()) throw clientLeft();
    // Sidecar reads the unpaged exposures where an era has them, else the pages.
    const chosen = eras.map((_, i) => ((clippedKeys[i]?.length ?? 0) > 0 ? ('clipped' as const) : ('paged' as const)));
    const pageKeys = chosen.map((kind, i) => (kind === 'clipped' ? (clippedKeys[i] ?? []) : (pagedKeys[i] ?? [])));
    const keys = pageKeys.flat();
    // A full page is about 25 KB: a few dozen a call keep each answer far under a node's response limit.
    const parts: Hex[][] = [];
    for (let at = 0; at < keys.length; at += PAGES_PER_CALL) parts.push(keys.slice(at, at + PAGES_PER_CALL));
    const pageValues = (await wave(parts.map((part) => readKeys(this.node, part, hash)))).flat();
    return { chosen, pageKeys, pageValues, eraValues };
  }
}

const clientLeft = () => new ApiError(499, 'The client left before the payouts were worked out.');

/** The error of a request whose client left: the work stops before its next wave. */
export function throwIfClientLeft(signal: AbortSignal): void {
  if (signal.aborted) throw clientLeft();
}

/** Where an exposure key (prefix ++ twox64(era) ++ era ++ twox64(validator) ++ validator ...) holds its validator. */
function keyLayout(registry: TypeRegistry, map: StorageMap): { start: number; accountLength: number } {
  const eraBytes = registry.createType(map.keyTypes[0] ?? 'u32', 0).toU8a().length;
  const accountLength = registry.createType(map.keyTypes[1] ?? 'AccountId', new Uint8Array(32)).toU8a().length;
  return { start: map.prefix.length + 8 + eraBytes + 8, accountLength };
}

/**
 * An exposure entry: the validator from its key (era, validator[, page]), the others from
 * its value. An era holds tens of thousands of entries and names the staker in a few: a
 * value is decoded only when its bytes hold the staker's account (an account is encoded
 * as its own bytes, so a value without them cannot name it), or when it is the staker's
 * own exposure (its total and own stake).
 */
function readPage(
  registry: TypeRegistry,
  map: StorageMap,
  { start, accountLength }: { start: number; accountLength: number },
  key: Hex,
  value: Hex | null,
  isClipped: boolean,
  stakerHex: string,
): Page {
  const bytes = Buffer.from(key.slice(2), 'hex');
  const validator = new Uint8Array(bytes.subarray(start, start + accountLength));
  // ... ++ twox64(page) ++ page, the page a little-endian u32.
  const page = isClipped ? undefined : bytes.readUInt32LE(start + accountLength + 8);
  const own = isClipped && u8aToHex(validator).slice(2) === stakerHex;
  if (!own && !value?.includes(stakerHex)) return { validator, page, others: [] };
  const exposure = decoded(registry, map, value);
  const others = listOf(fieldOf(exposure, 'others')).map((one): [Uint8Array, string] => [
    (fieldOf(one, 'who') as Codec).toU8a(),
    bigintOf(fieldOf(one, 'value')).toString(),
  ]);
  const clipped = isClipped ? { total: bigintOf(fieldOf(exposure, 'total')).toString(), own: bigintOf(fieldOf(exposure, 'own')).toString() } : undefined;
  return { validator, page, others, clipped };
}

function pointsByValidator(individual: Codec | undefined): Record<string, string> {
  const points: Record<string, string> = {};
  if (!individual) return points;
  for (const [account, value] of (individual as unknown as Map<Codec, Codec>).entries()) points[u8aToHex(account.toU8a())] = value.toString();
  return points;
}

/**
 * The validators `staker` backed, in sidecar's order: once per page entry naming it, in
 * key order, then the validator itself when it has pages. The stake is the one on the
 * page that names the staker (sidecar looks on the validator's last listed page only,
 * and misses a nominator on any other: docs/differences.md).
 */
function backingsOf(staker: Uint8Array, pages: Page[]): Backing[] {
  const backings: Backing[] = [];
  const seen = new Set<Hex>();
  for (const page of pages) {
    const validator = u8aToHex(page.validator);
    seen.add(validator);
    for (const [who, value] of page.others) {
      if (u8aEq(who, staker)) backings.push({ validator, stake: value, page: page.page, clipped: page.clipped });
    }
  }
  const self = u8aToHex(staker);
  const own = pages.find((page) => u8aToHex(page.validator) === self);
  if (seen.has(self)) backings.push({ validator: self, clipped: own?.clipped });
  return backings;
}
