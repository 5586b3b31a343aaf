// The crowd of a realistic era for the staking bench: validators beside the named ones,
// each exposed to a few dozen to a few hundred nominators, some to more than a page holds,
// so a payout request walks what it walks on a real chain (Polkadot elects 297).
import { u8aToHex } from '@polkadot/util';
import { blake2AsU8a } from '@polkadot/util-crypto';

export interface CrowdSize {
  /** Validators beside V1-V3. */
  validators: number;
  /** The most nominators behind a validator of one page (they range from a fifth of it up). */
  nominators: number;
  /** Every this many validators, one exposed to more than a page (two or three pages). */
  pagedEvery: number;
}

export interface CrowdValidator {
  id: string;
  own: bigint;
  pages: [string, bigint][][];
  /** Its pages paid in the era: all, the first, or none, in turn. */
  claimed: number[];
}

const UNIT = 1_000_000_000_000n;
/** Distinct nominator accounts the crowd's exposures are drawn from. */
const POOL_SIZE = 20_000;
let pool: string[] | undefined;

function nominatorPool(): string[] {
  pool ??= Array.from({ length: POOL_SIZE }, (_, k) => u8aToHex(blake2AsU8a(`fastcar crowd nominator ${k}`)));
  return pool;
}

/** The `k`th account of the crowd's nominators (hex), for asking its payouts. */
export function crowdNominator(k: number): string {
  return nominatorPool()[k % POOL_SIZE] as string;
}

/** The crowd's validators (hex), the same in every era. */
export function crowdValidatorIds(size: CrowdSize): string[] {
  return Array.from({ length: size.validators }, (_, j) => u8aToHex(blake2AsU8a(`fastcar crowd validator ${j}`)));
}

export interface CrowdEra {
  size: CrowdSize;
  era: number;
  ids: string[];
  /** The page size of the runtime (its MaxExposurePageSize). */
  pageSize: number;
  /** Named nominators, the crowd validators each backs and its stake: put on each one's last page. */
  backers: [string, string[], bigint][];
}

export function crowdOfEra({ size, era, ids, pageSize, backers }: CrowdEra): CrowdValidator[] {
  const everyone = nominatorPool();
  return ids.map((id, j) => {
    const paged = j % size.pagedEvery === size.pagedEvery - 1;
    const backed = backers.some(([, validators]) => validators.includes(id));
    const many = paged ? pageSize + ((j * 97 + era) % (pageSize + 1)) : Math.ceil(size.nominators / 5) + ((j * 37 + era) % Math.floor(size.nominators * 0.8));
    // A named backer's validators keep to one page: sidecar finds a nominator on the page it lists last only
    // (docs/differences.md), and the bench compares answers that agree.
    const count = backed ? Math.min(many, pageSize - backers.length) : many;
    const entries: [string, bigint][] = [];
    for (let k = 0; k < count; k++)
      entries.push([everyone[(j * 131 + k * 7 + era) % POOL_SIZE] as string, 10n * UNIT + BigInt((j * 13 + k * 17 + era) % 5_000) * UNIT]);
    const pages: [string, bigint][][] = [];
    for (let at = 0; at < entries.length; at += pageSize) pages.push(entries.slice(at, at + pageSize));
    for (const [who, backed, stake] of backers) if (backed.includes(id)) (pages[pages.length - 1] as [string, bigint][]).push([who, stake]);
    // A named backer may have filled the last page past its size: it then opens one of its own.
    const last = pages[pages.length - 1] as [string, bigint][];
    if (last.length > pageSize) pages.push(last.splice(pageSize));
    const claimed = j % 3 === 0 ? pages.map((_, page) => page) : j % 3 === 1 ? [0] : [];
    return { id, own: 20_000n * UNIT + BigInt(j), pages, claimed };
  });
}
