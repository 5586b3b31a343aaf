// Staking eras with rewards, written into the devnet's state. The devnet's genesis has no
// stakers beyond two validators and chopsticks cannot run eras (they end on the relay
// chain's session reports, which it never sends), so the eras are written as storage with
// chopsticks' dev_setStorage, each value encoded with the runtime's own types, and a block
// is built on top: the routes then read real chain state at a real block.
import type { ApiPromise } from '@polkadot/api';
import { Keyring } from '@polkadot/keyring';
import type { StorageEntryBase } from '@polkadot/api/types';
import { u8aToHex } from '@polkadot/util';
import { cryptoWaitReady } from '@polkadot/util-crypto';

import { ASSET_HUB_BABE } from '../src/services/staking/babeFacts';
import { sessionOfEpoch } from '../src/services/staking/stakingReads';
import { crowdOfEra, crowdValidatorIds, type CrowdSize } from './stakingCrowd';

/** The first era written: after westmint's last relay-paid era (9297), which sidecar asks the relay chain for. */
export const FIRST_ERA = 9300;
/** Eras FIRST_ERA .. LAST_ERA are closed, with rewards; ACTIVE_ERA is the active and current one. */
export const LAST_ERA = 9313;
export const ACTIVE_ERA = LAST_ERA + 1;
/** V1's exposure is on two pages in this era (N1 on page 0, N2 on page 1), page 0 paid. */
export const TWO_PAGE_ERA = 9301;
/** V2 earned no points in this era. */
export const POINTLESS_ERA = 9306;
/** No validator reward was recorded for this era. */
export const UNREWARDED_ERA = 9308;
/** N1 backed no validator in this era (its validators were exposed with their own stake only). */
export const IDLE_ERA = 9310;

const UNIT = 1_000_000_000_000n;

export interface StakingWorld {
  /** Validators: V1 and V2 are the genesis stashes, V3's controller is another account. */
  v1: string;
  v2: string;
  v3: string;
  controller3: string;
  /** N1 nominates V1, V2 and V3; N2 nominates V1. */
  n1: string;
  n2: string;
  /** Not bonded. */
  nobody: string;
  /** The block built on the written state. */
  height: number;
  hash: string;
}

type Entry = StorageEntryBase<'promise', never>;

/** Bytes of hex sent in one dev_setStorage call: far under the devnet's 100 MB message limit. */
const SET_STORAGE_CHARS = 8_000_000;

/**
 * The session an Asset Hub is in at `nowMs` as its relay chain counts them (the relay's
 * skipped epochs from `relay`, none without one), so the eras start at sessions that
 * lie just behind it, as on a live chain.
 */
async function currentSession(api: ApiPromise, nowMs: bigint, relay?: ApiPromise): Promise<bigint> {
  const babe = ASSET_HUB_BABE[api.runtimeVersion.specName.toString()];
  if (!babe) throw new Error(`no BABE facts for ${api.runtimeVersion.specName.toString()}`);
  const epoch = (nowMs / babe.slotDurationMs - babe.genesisSlot) / babe.epochDuration;
  const skipped = relay ? ((await relay.query.babe.skippedEpochs()) as unknown as [{ toString(): string }, { toString(): string }][]) : [];
  return sessionOfEpoch(
    epoch,
    skipped.map(([at, session]) => [BigInt(at.toString()), BigInt(session.toString())]),
  );
}

/**
 * `crowd` (the bench only): every era also has `crowd.validators` more validators with
 * pages of nominators, as a real chain's eras have, N1 and N2 backing 16 validators each.
 * `relay`: the relay chain beside the devnet, whose skipped epochs place the eras' start
 * sessions (BondedEras) where its session count is.
 */
export async function writeStakingEras(api: ApiPromise, crowd?: CrowdSize, relay?: ApiPromise): Promise<StakingWorld> {
  await cryptoWaitReady();
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  const address = (uri: string) => keyring.addFromUri(uri).address;
  const [v1, v2, v3, controller3, n1, n2, nobody] = [
    '//Alice//stash',
    '//Bob//stash',
    '//fastcar//validator3',
    '//fastcar//controller3',
    '//fastcar//nominator1',
    '//fastcar//nominator2',
    '//fastcar//nobody',
  ].map(address) as [string, string, string, string, string, string, string];
  const staking = api.query.staking as unknown as Record<string, Entry>;
  const pairs: [string, string][] = [];
  // Each value encoded with the type the runtime's metadata gives the item.
  const put = (item: string, keyArgs: unknown[], value: unknown) => {
    const entry = staking[item] as Entry;
    const { type } = entry.creator.meta;
    const valueType = api.registry.createLookupType(type.isMap ? type.asMap.value : type.asPlain);
    // SCALE bytes: a number's toHex would be its big-endian hex.
    pairs.push([(entry.key as (...args: unknown[]) => string)(...keyArgs), u8aToHex(api.registry.createType(valueType, value).toU8a())]);
  };
  const now = (await api.query.timestamp.now()).toString();

  const bond = (stash: string, controller: string, total: bigint, payee: unknown) => {
    put('bonded', [stash], controller);
    put('ledger', [controller], { stash, total, active: total - 10n * UNIT, unlocking: [{ value: 10n * UNIT, era: ACTIVE_ERA + 2 }] });
    put('payee', [stash], payee);
  };
  bond(v3, controller3, 3_000n * UNIT, 'Staked');
  put('validators', [v3], { commission: 55_000_000, blocked: false });
  const crowdIds = crowd ? crowdValidatorIds(crowd) : [];
  // N1 backs 13 of the crowd beside V1-V3, N2 15 beside V1: sixteen each.
  const n1Crowd = crowdIds.slice(0, 13);
  const n2Crowd = crowdIds.slice(13, 28);
  bond(n1, n1, 2_500n * UNIT + 123n, { Account: nobody });
  put('nominators', [n1], { targets: [v1, v2, v3, ...n1Crowd], submittedIn: FIRST_ERA, suppressed: false });
  bond(n2, n2, 900n * UNIT, 'Stash');
  put('nominators', [n2], { targets: [v1, ...n2Crowd], submittedIn: FIRST_ERA + 1, suppressed: false });
  for (const id of crowdIds) {
    bond(id, id, 20_000n * UNIT, 'Staked');
    put('validators', [id], { commission: 30_000_000, blocked: false });
  }
  const pageSize = Number((api.consts.staking as unknown as { maxExposurePageSize: { toString(): string } }).maxExposurePageSize.toString());

  for (let era = FIRST_ERA; era <= LAST_ERA; era++) {
    const i = BigInt(era - FIRST_ERA);
    const idle = era === IDLE_ERA;
    const n1On1 = 1_234n * UNIT + 7n * i + 1n;
    const n2On1 = 456n * UNIT + 3n * i;
    const n1On2 = 789n * UNIT + 11n * i;
    const n1On3 = 321n * UNIT + 5n * i;
    const own = [5_000n * UNIT + i, 4_000n * UNIT + 2n * i, 3_000n * UNIT];
    const exposures: [string, bigint, [string, bigint][][]][] = [
      [
        v1,
        own[0] as bigint,
        era === TWO_PAGE_ERA
          ? [[[n1, n1On1]], [[n2, n2On1]]]
          : [
              idle
                ? [[n2, n2On1]]
                : [
                    [n1, n1On1],
                    [n2, n2On1],
                  ],
            ],
      ],
      [v2, own[1] as bigint, [idle ? [] : [[n1, n1On2]]]],
      [v3, own[2] as bigint, [idle ? [] : [[n1, n1On3]]]],
    ];
    const crowdPages = crowd
      ? crowdOfEra({
          size: crowd,
          era,
          ids: crowdIds,
          pageSize,
          backers: [
            [n1, n1Crowd, n1On3],
            [n2, n2Crowd, n2On1],
          ],
        })
      : [];
    for (const validator of crowdPages) exposures.push([validator.id, validator.own, validator.pages]);
    const points: [string, number][] = [];
    exposures.forEach(([validator, ownStake, pages], index) => {
      const others = pages.flat();
      const total = others.reduce((sum, [, value]) => sum + value, ownStake);
      put('erasStakersOverview', [era, validator], { total, own: ownStake, nominatorCount: others.length, pageCount: pages.length });
      pages.forEach((page, number) => {
        const pageTotal = page.reduce((sum, [, value]) => sum + value, 0n);
        put('erasStakersPaged', [era, validator, number], { pageTotal, others: page.map(([who, value]) => ({ who, value })) });
      });
      const commission = index < 3 ? [100_000_000, 0, 55_000_000][index]! + Number(i) * 1_000_000 : 30_000_000 + (index % 7) * 10_000_000;
      put('erasValidatorPrefs', [era, validator], { commission, blocked: false });
      points.push([validator, index === 1 && era === POINTLESS_ERA ? 0 : index < 3 ? 20 + 3 * Number(i) - 5 * index : 40 + (index % 31)]);
    });
    // V1's pages are paid every other era (the two-page era's first only), V2's up to the middle, V3's never.
    if (era % 2 === 0 || era === TWO_PAGE_ERA) put('claimedRewards', [era, v1], [0]);
    if (era < FIRST_ERA + 6) put('claimedRewards', [era, v2], [0]);
    for (const { id, claimed } of crowdPages) if (claimed.length) put('claimedRewards', [era, id], claimed);
    const total = points.reduce((sum, [, value]) => sum + value, 7);
    put('erasRewardPoints', [era], { total, individual: new Map(points) });
    if (era !== UNREWARDED_ERA) put('erasValidatorReward', [era], 1_000n * UNIT + 13n * UNIT * i + 987_654_321n);
  }
  put('currentEra', [], ACTIVE_ERA);
  put('activeEra', [], { index: ACTIVE_ERA, start: now });
  // Each era's first session, the active one's a session ago: progress reads where the active era began.
  const sessionsPerEra = BigInt((api.consts.staking as unknown as { sessionsPerEra: { toString(): string } }).sessionsPerEra.toString());
  const session = await currentSession(api, BigInt(now), relay);
  const starts: [number, bigint][] = [];
  for (let era = FIRST_ERA; era <= ACTIVE_ERA; era++) starts.push([era, session - 1n - BigInt(ACTIVE_ERA - era) * sessionsPerEra]);
  put('bondedEras', [], starts);
  if (staking.erasStartSessionIndex) for (const [era, start] of starts) put('erasStartSessionIndex', [era], start);
  // In parts the devnet's message limit takes.
  for (let at = 0; at < pairs.length; ) {
    const part: [string, string][] = [];
    for (let chars = 0; at < pairs.length && chars < SET_STORAGE_CHARS; at++) {
      const pair = pairs[at] as [string, string];
      part.push(pair);
      chars += pair[0].length + pair[1].length;
    }
    await api.rpc('dev_setStorage' as never, part as never);
  }
  await api.rpc('dev_newBlock' as never, {} as never);
  const header = await api.rpc.chain.getHeader();
  return { v1, v2, v3, controller3, n1, n2, nobody, height: header.number.toNumber(), hash: header.hash.toHex() };
}
