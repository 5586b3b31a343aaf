// An account's vesting schedules (Vesting.Vesting) at a block, as sidecar's
// /accounts/{id}/vesting-info answers them; with includeClaimable, what each has
// released and what can be claimed (vestingSchedule.ts). Once `at` is resolved, one
// wave: the schedules, and for includeClaimable the account's locks (the vesting lock)
// and the relay parent this block was built on (an Asset Hub's schedules run on relay
// chain heights), all in one state_queryStorageAt beside the runtime version and, for
// a hash, the header. Only an Asset Hub block after the migration whose relay block
// the caller does not know needs more: the relay chain's blocks that may have included it.
import { Struct, type Vec } from '@polkadot/types';
import { hexToU8a, u8aToBn } from '@polkadot/util';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson } from '../../decode/codecJson';
import { badRequest } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { wave } from '../../rpc/requestStats';
import { readResolvedAt, type AtBlock, type AnswerAt } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { RuntimeRegistry } from '../runtimes';
import { accountMapKey, checkAccountBytes, LOCKS_MAP, mapLayoutOf, readMapValue, valueKey, VESTING_MAP } from './accountMaps';
import type { AccountQuery } from './proxyInfo';
import { entriesApart, entriesTogether, entryOf } from '../shared/storage/storageBatch';
import { vestingClock, vestingTotals, type Schedule } from './vestingSchedule';
import { bigintOf } from '../../decode/codecValues';

export interface VestingQuery extends AccountQuery {
  includeClaimable: boolean;
}

/** How the relay chain block that included an Asset Hub block is learnt. */
export interface RelayHeight {
  /** Known already (useRcBlock: the relay block asked for). */
  known?: number;
  /** Looked for among the relay blocks after the one it was built on; absent without a relay chain node. */
  search?: (hash: Hex, relayParent: number) => Promise<number>;
  /** Why there is no search, for the 400. */
  missing?: string;
}

/** The id of the lock the vesting pallet holds funds under ("vesting " in ASCII). */
const VESTING_LOCK_ID = '0x76657374696e6720';

/** The relay parent a parachain block was built on, kept by ParachainSystem. */
const LAST_RELAY_NUMBER_KEY = valueKey('ParachainSystem', 'LastRelayChainBlockNumber');

export class AccountVesting {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
  ) {}

  async vestingInfo(at: AtBlock, query: VestingQuery, relayHeight: RelayHeight = {}): Promise<AnswerAt> {
    const block = await this.ids.at(at);
    const vestingKey = accountMapKey(VESTING_MAP, query.account);
    const locksKey = accountMapKey(LOCKS_MAP, query.account);
    const keys = query.includeClaimable ? [vestingKey, locksKey, LAST_RELAY_NUMBER_KEY] : [vestingKey];
    const [read, together] = await wave([readResolvedAt(this.node, this.cache, block), entriesTogether(this.node, keys, block.hash)] as const);
    const stored = together ?? (await entriesApart(this.node, keys, block.hash));
    const { registry } = await this.runtimes.get(read.version, read.hash);
    const layout = mapLayoutOf(registry, VESTING_MAP);
    if (!layout) throw badRequest('Vesting pallet does not exist on the specified blocks runtime version');
    checkAccountBytes(query.account, query.ethereum, layout.accountIdBytes);
    const answer = (fields: Record<string, unknown>): AnswerAt => {
      const json = JSON.stringify({ at: { hash: read.hash, height: String(read.number) }, ...fields });
      return { json, hash: read.hash, final: read.final };
    };
    const value = readMapValue(registry, layout, entryOf(stored, vestingKey));
    // Runtimes before 2021 kept one schedule, later ones a list.
    const schedules = value === undefined ? [] : value instanceof Struct ? [value] : [...(value as Vec<Struct>)];
    const raw = { vesting: schedules.map((schedule) => toSidecarJson(schedule)) };
    if (schedules.length === 0 || !query.includeClaimable) return answer(raw);

    const clock = vestingClock(read.version.specName, read.number);
    if (clock === 'none') return answer(raw);
    let height = BigInt(read.number);
    if (clock === 'relay') {
      height = BigInt(await relayHeightOf(read.hash, entryOf(stored, LAST_RELAY_NUMBER_KEY), relayHeight));
    }
    const plain = schedules.map(scheduleOf);
    const locks = readLocks(registry, entryOf(stored, locksKey));
    const totals = vestingTotals(plain, locks, clock === 'zero' ? null : height);
    return answer({
      vesting: plain.map((schedule, i) => ({
        locked: String(schedule.locked),
        perBlock: String(schedule.perBlock),
        startingBlock: String(schedule.startingBlock),
        vested: String(totals.vested[i]),
      })),
      vestedBalance: String(totals.vestedBalance),
      vestingTotal: String(totals.vestingTotal),
      vestedClaimable: String(totals.vestedClaimable),
      blockNumberForCalculation: String(height),
      blockNumberSource: clock === 'relay' ? 'relay' : 'self',
    });
  }
}

function scheduleOf(schedule: Struct): Schedule {
  return { locked: bigintOf(schedule.get('locked')), perBlock: bigintOf(schedule.get('perBlock')), startingBlock: bigintOf(schedule.get('startingBlock')) };
}

/** What the vesting lock holds, 0 without one (or on a runtime without Balances.Locks). */
function readLocks(registry: Parameters<typeof mapLayoutOf>[0], value: Hex | null): bigint {
  const layout = mapLayoutOf(registry, LOCKS_MAP);
  const locks = layout ? (readMapValue(registry, layout, value) as Vec<Struct> | undefined) : undefined;
  const vesting = locks?.find((lock) => lock.get('id')?.toHex() === VESTING_LOCK_ID);
  return vesting ? bigintOf(vesting.get('amount')) : 0n;
}

/** The relay block that included this Asset Hub block: known, or searched for after the relay parent it was built on. */
async function relayHeightOf(hash: Hex, lastRelayNumber: Hex | null, relayHeight: RelayHeight): Promise<number> {
  if (relayHeight.known !== undefined) return relayHeight.known;
  if (!relayHeight.search) throw badRequest(relayHeight.missing ?? 'includeClaimable at this block needs the relay chain');
  const relayParent = lastRelayNumber === null ? 0 : u8aToBn(hexToU8a(lastRelayNumber).slice(0, 4)).toNumber();
  return relayHeight.search(hash, relayParent);
}
