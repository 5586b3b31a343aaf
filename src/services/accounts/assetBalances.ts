// An account's assets at a block, as sidecar's /accounts/{id}/asset-balances,
// /pool-asset-balances, /foreign-asset-balances and the approvals routes answer them.
// Named assets: once `at` is resolved, every balance in one wave (all keys in one
// state_queryStorageAt, built with the newest runtime loaded and checked against the
// block's own), beside the runtime version and (for a hash) the header.
// Every asset (none named): the pallet's asset ids listed first (state_getKeysPaged,
// pages of 1000, at most MAX_LISTED_ASSETS), then every balance in one more wave.
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { atJson, readResolvedAt, type AtBlock, type ReadAt, type ResolvedAt, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { Runtime, RuntimeRegistry } from '../runtimes';
import { assetLayoutOf, keyOf, keyPartOf, readValue, type AssetLayout, type AssetPallet, type StorageMap } from './assetStorage';
import { readKeysAt } from '../shared/storage/keysAtBlock';
import { listKeys, readKeys } from '../shared/storage/storageBatch';
import { itemPrefix } from '../shared/storage/storageLayout';

/** The most assets "every asset" reads: beyond it, the client is asked to name the ones it wants. */
export const MAX_LISTED_ASSETS = 10_000;

/** An asset id as the client named it: a number (Assets, PoolAssets) or a location's JSON (ForeignAssets). */
export type AssetIdInput = number | JsonValue;

export interface AssetsQuery {
  pallet: AssetPallet;
  account: Uint8Array;
  /** Empty: every asset the pallet has. */
  assets: AssetIdInput[];
}

export interface ApprovalQuery {
  pallet: 'Assets' | 'PoolAssets';
  owner: Uint8Array;
  delegate: Uint8Array;
  assetId: number;
}

/** What sidecar calls each pallet in its 400 for a runtime without it, and the list in its answer. */
const PALLET_NAMES: Record<AssetPallet, { missing: string; list: string; id: string }> = {
  Assets: { missing: 'assets pallet', list: 'assets', id: 'assetId' },
  PoolAssets: { missing: 'pool assets pallet', list: 'poolAssets', id: 'assetId' },
  ForeignAssets: { missing: 'foreignAssets pallet', list: 'foreignAssets', id: 'multiLocation' },
};

/** A balance's fields when the account holds none of the asset. */
const NOTHING_HELD = { balance: '0', isFrozen: false, isSufficient: false };

/** A read's block, its runtime's types and the pallet's layout there, and the values of the keys it needed. */
interface ReadValues {
  read: ReadAt;
  registry: TypeRegistry;
  layout: AssetLayout;
  values: (Hex | null)[];
}

/** The keys a read needs, built with a runtime's types (throws a 400 for an id those types cannot hold). */
type KeysOf = (registry: TypeRegistry, layout: AssetLayout) => Hex[];

export class AccountAssets {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  async balances(at: AtBlock, query: AssetsQuery): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const pallet = query.pallet;
    if (query.assets.length > 0) {
      const idsOf = (registry: TypeRegistry, layout: AssetLayout) => query.assets.map((id) => encodeAssetId(registry, layout.account, id));
      const keysOf: KeysOf = (registry, layout) => accountKeys(layout, idsOf(registry, layout), query.account);
      const { read, registry, layout, values } = await this.readGuessing(block, pallet, keysOf);
      return balancesAnswer(read, registry, layout, query, idsOf(registry, layout), values);
    }
    // The asset ids are listed under a prefix no runtime changes: beside the version, before the balances.
    const tooMany = `This chain has more than ${MAX_LISTED_ASSETS} ${PALLET_NAMES[pallet].list}: name the ones wanted.`;
    const [read, listed] = await wave([
      readResolvedAt(this.node, this.cache, block),
      listKeys(this.node, ASSET_MAP_PREFIXES[pallet], block.hash, { maxKeys: MAX_LISTED_ASSETS, tooMany }).catch((error: unknown) => error as Error),
    ] as const);
    if (listed instanceof Error) throw listed;
    const { registry, layout } = await this.layoutAt(read, pallet);
    checkAccount(registry, layout, query.account);
    const ids = listed.map((key) => keyPartOf(layout.asset, key)).filter((id): id is Uint8Array => id !== undefined);
    const values = await readKeys(this.node, accountKeys(layout, ids, query.account), read.hash);
    return balancesAnswer(read, registry, layout, query, ids, values);
  }

  async approval(at: AtBlock, query: ApprovalQuery): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const keysOf: KeysOf = (registry, layout) => {
      const approvals = layout.approvals;
      if (!approvals) throw badRequest(`The runtime does not include approvals in the ${PALLET_NAMES[query.pallet].missing} at this block.`);
      return [keyOf(approvals, [encodeAssetId(registry, approvals, query.assetId), query.owner, query.delegate])];
    };
    const { read, registry, layout, values } = await this.readGuessing(block, query.pallet, keysOf);
    checkAccount(registry, layout, query.owner);
    checkAccount(registry, layout, query.delegate);
    const approval = readValue(registry, layout.approvals as StorageMap, values[0] ?? null) as Fields | null;
    const body = {
      at: atJson(read),
      amount: approval ? (approval.get('amount')?.toString() ?? null) : null,
      deposit: approval ? (approval.get('deposit')?.toString() ?? null) : null,
    };
    return { json: JSON.stringify(body), hash: read.hash, final: read.final };
  }

  /** The values of the keys a read needs, guessed with the newest runtime in the wave of the block's version (keysAtBlock.ts). */
  private async readGuessing(block: ResolvedAt, pallet: AssetPallet, keysOf: KeysOf): Promise<ReadValues> {
    const keysFor = ({ registry }: Runtime) => keysOf(registry, palletLayout(registry, pallet));
    const { read, runtime, values } = await readKeysAt(this.node, this.cache, this.runtimes, block, keysFor);
    return { read, registry: runtime.registry, layout: palletLayout(runtime.registry, pallet), values };
  }

  private async layoutAt(read: ReadAt, pallet: AssetPallet): Promise<{ registry: TypeRegistry; layout: AssetLayout }> {
    const { registry } = await this.runtimes.get(read.version, read.hash);
    return { registry, layout: palletLayout(registry, pallet) };
  }
}

/** The pallet's layout in a runtime, or sidecar's 400 for a runtime without it. */
function palletLayout(registry: TypeRegistry, pallet: AssetPallet): AssetLayout {
  const layout = assetLayoutOf(registry, pallet);
  if (!layout) throw badRequest(`The runtime does not include the ${PALLET_NAMES[pallet].missing} at this block.`);
  return layout;
}

function accountKeys(layout: AssetLayout, ids: Uint8Array[], account: Uint8Array): Hex[] {
  return ids.map((id) => keyOf(layout.account, [id, account]));
}

/** An account whose bytes are not this chain's account's length is the client's mistake, never a key read. */
function checkAccount(registry: TypeRegistry, layout: AssetLayout, account: Uint8Array): void {
  const accountType = layout.account.keyTypes[1];
  const length = accountType ? registry.createType(accountType).encodedLength : account.length;
  if (account.length === length) return;
  throw badRequest(`This address encodes a ${account.length}-byte value, not an account of this chain: its accounts are ${length} bytes long.`);
}

function balancesAnswer(read: ReadAt, registry: TypeRegistry, layout: AssetLayout, query: AssetsQuery, ids: Uint8Array[], values: (Hex | null)[]): AnswerAt {
  checkAccount(registry, layout, query.account);
  const foreign = query.pallet === 'ForeignAssets';
  const idType = layout.account.keyTypes[0] ?? 'u32';
  const names = PALLET_NAMES[query.pallet];
  const list = ids.map((id, i) => {
    // A named asset is echoed as the client wrote it (as sidecar does); a listed one as the chain keys it.
    const named = query.assets[i];
    const idJson = named !== undefined && !foreign ? named : toSidecarJson(registry.createType(idType, id));
    return { [names.id]: idJson, ...balanceFields(readValue(registry, layout.account, values[i] ?? null), foreign) };
  });
  // Sidecar leaves out the foreign assets the account holds none of (and only those).
  const kept = foreign ? list.filter((entry) => entry.balance !== '0') : list;
  const body = { at: atJson(read), [names.list]: kept };
  return { json: JSON.stringify(toSidecarJson(body)), hash: read.hash, final: read.final };
}

/** Each pallet's map of assets: twox128(pallet) ++ twox128("Asset"), fixed by the names. */
const ASSET_MAP_PREFIXES = Object.fromEntries(
  (['Assets', 'PoolAssets', 'ForeignAssets'] as const).map((pallet) => [pallet, itemPrefix(pallet, 'Asset')]),
) as Record<AssetPallet, Hex>;

/** An asset id in its key's encoding; one the chain's type cannot hold is the client's mistake. */
function encodeAssetId(registry: TypeRegistry, map: StorageMap, id: AssetIdInput): Uint8Array {
  const type = map.keyTypes[0] ?? 'u32';
  try {
    return registry.createType(type, id).toU8a();
  } catch (error) {
    throw badRequest(`Asset id ${JSON.stringify(id)} is not an asset id of this chain: ${error instanceof Error ? error.message : String(error)}`);
  }
}

type Fields = Codec & { get(name: string): Codec | undefined };

/**
 * balance, isFrozen, isSufficient as sidecar reads them: a runtime with `reason` (since
 * 2023) has no isFrozen (the asset routes say so in words, the foreign route answers
 * false); older ones have `sufficient` or `isSufficient`, and read as nothing held when
 * that is false (sidecar's reading, kept).
 */
function balanceFields(stored: Codec | null, foreign: boolean): { balance: string; isFrozen: boolean | string; isSufficient: boolean } {
  if (!stored) return NOTHING_HELD;
  const fields = stored as Fields;
  const balance = fields.get('balance')?.toString() ?? '0';
  const reason = fields.get('reason') as (Codec & { isSufficient?: boolean }) | undefined;
  if (reason) {
    const frozen = fields.get('isFrozen');
    const isFrozen = frozen ? frozen.toJSON() === true : foreign ? false : 'isFrozen does not exist for this runtime';
    return { balance, isFrozen, isSufficient: reason.isSufficient === true };
  }
  const sufficient = (fields.get('sufficient') ?? fields.get('isSufficient'))?.toJSON() === true;
  if (!sufficient) return NOTHING_HELD;
  return { balance, isFrozen: fields.get('isFrozen')?.toJSON() === true, isSufficient: true };
}
