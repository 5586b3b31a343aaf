// Broker state on the coretime devnet (Coretime Westend from its development genesis, where
// the Broker holds nothing), made at test time by real extrinsics: root (Alice, the sudo key
// devnet/coretimeChain.ts puts in the spec) configures the Broker, reserves a core for a
// system para and one for the on-demand pool, leases two cores, and starts sales; Bob and
// Alice buy cores, split them (partition, interlace) and assign them to tasks. Nothing is
// written with dev_setStorage.
//
// The Broker keeps time by relay block number (80 a timeslice on Westend), which a
// parachain learns from its validation data. chopsticks mocks that inherent and moves the
// relay parent on by one per block unless `dev_newBlock` names one (`relayParentNumber`),
// so the seeding jumps it forward to reach the sale's start and the next sale rotation in
// a few blocks. The Broker's tick in a block's on_initialize sees the previous block's
// relay parent; the block's extrinsics see its own.
import type { SubmittableExtrinsic } from '@polkadot/api/types';

import { openSeeder } from './devnetSeeder';

export interface CoretimeRegionId {
  begin: number;
  core: number;
  /** The 80-bit core mask, hex. */
  mask: string;
}

export interface CoretimeState {
  /** The one who bought two cores and split one of them, and the one who bought the third. */
  buyer: string;
  secondBuyer: string;
  /** The system para given a reserved core, and the two leased para ids. */
  reservedTask: number;
  leasedTasks: [number, number];
  /** Tasks the bought regions were assigned to: final (a whole core), final (half a core), provisional (a later piece). */
  assignedTasks: { whole: number; half: number; provisional: number };
  /** The first sale's regions: they start at `regionBegin` and end at `regionEnd` (timeslices). */
  regionBegin: number;
  regionEnd: number;
  /** Regions still held at the head (all but those assigned finally), with owners: differing begins and masks. */
  regions: { id: CoretimeRegionId; owner: string; end: number }[];
  /** The height before the Broker held anything, and the heights after each step. */
  before: number;
  configured: number;
  reserved: number;
  leased: number;
  salesStarted: number;
  purchased: number;
  partitioned: number;
  assigned: number;
  /** The first block where the second sale is on: the first sale's regions have begun. */
  rotated: number;
  head: number;
  /** The relay parent number each of those heights was built on. */
  relayParents: Record<string, number>;
}

const TIMESLICE_PERIOD = 80;
const UNIT = 1_000_000_000_000n;
const FULL_MASK = `0x${'ff'.repeat(10)}`;
const FIRST_HALF = `0x${'ff'.repeat(5)}${'00'.repeat(5)}`;
const SECOND_HALF = `0x${'00'.repeat(5)}${'ff'.repeat(5)}`;
/** The Broker's configuration (lengths in relay blocks, small so the first sale opens a few blocks after it is started). */
export const BROKER_CONFIG = {
  advanceNotice: 10,
  interludeLength: 2,
  leadinLength: 20,
  regionLength: 3,
  idealBulkProportion: 600_000_000,
  limitCoresOffered: null,
  renewalBump: 30_000_000,
  contributionTimeout: 5,
};

export async function seedCoretime(wsUrl: string): Promise<CoretimeState> {
  const seeder = await openSeeder(wsUrl, 'coretime devnet');
  try {
    const { api, alice, bob, sign, build } = seeder;
    const root = (call: SubmittableExtrinsic<'promise'>) => sign(api.tx.sudo.sudo(call));
    const relayParents: Record<string, number> = {};
    const relayParent = async () => Number((await api.query.parachainSystem.lastRelayChainBlockNumber()).toString());
    const step = async (name: string, transactions: `0x${string}`[], relayParentNumber?: number) => {
      const built = await build(transactions, relayParentNumber);
      relayParents[name] = await relayParent();
      return built;
    };

    const before = (await api.rpc.chain.getHeader()).number.toNumber();
    relayParents.before = await relayParent();
    const reservedTask = 1000;
    const leasedTasks: [number, number] = [2000, 2001];
    const assignedTasks = { whole: 2002, half: 2003, provisional: 2004 };

    const configured = (await step('configured', [await root(api.tx.broker.configure(BROKER_CONFIG))])).height;
    // As on the real chains: a core for a system para, a core for the on-demand pool.
    const reserved = (
      await step('reserved', [
        await root(api.tx.broker.reserve([{ mask: FULL_MASK, assignment: { Task: reservedTask } }])),
        await root(api.tx.broker.reserve([{ mask: FULL_MASK, assignment: 'Pool' }])),
      ])
    ).height;
    // Leases far past the seeding's last sale, so both are still held at the head.
    const leaseUntil = Math.floor(relayParents.reserved / TIMESLICE_PERIOD) + 100;
    const leased = (await step('leased', await Promise.all(leasedTasks.map((task, i) => root(api.tx.broker.setLease(task, leaseUntil + i)))))).height;
    // Four cores for sale beside the two reserved and the two leased.
    const salesStarted = (await step('salesStarted', [await root(api.tx.broker.startSales(10n * UNIT, 4))])).height;
    const saleAt = async () => (await api.query.broker.saleInfo()).toJSON() as { saleStart: number; saleIndex: number };
    const { saleStart, saleIndex } = await saleAt();

    // Bought just after the sale opens, in its lead-in; the relay parent jumps there.
    const priceLimit = 2_000n * UNIT;
    const bought = await step(
      'purchased',
      [
        await sign(api.tx.broker.purchase(priceLimit), bob),
        await sign(api.tx.broker.purchase(priceLimit), bob),
        await sign(api.tx.broker.purchase(priceLimit), alice),
      ],
      Math.max(saleStart + 1, relayParents.salesStarted + 1),
    );
    const purchases = bought.events
      .filter(({ event }) => api.events.broker.Purchased.is(event))
      .map(({ event }) => event.data as unknown as { regionId: { toJSON(): CoretimeRegionId } });
    if (purchases.length !== 3) throw new Error(`expected 3 purchases, the block has ${purchases.length}`);
    const [whole, split, halved] = purchases.map((purchase) => purchase.regionId.toJSON());
    const regionBegin = whole.begin;
    const regionEnd = regionBegin + BROKER_CONFIG.regionLength;
    const purchased = bought.height;

    // Bob splits his second core in time (the first timeslice, then the rest) and the rest in
    // two by mask; Alice splits hers by mask. Each result is a region of its own.
    const later = { begin: regionBegin + 1, core: split.core, mask: FULL_MASK };
    const partitioned = (
      await step('partitioned', [
        // The pivot is an offset from the region's begin.
        await sign(api.tx.broker.partition(split, 1), bob),
        await sign(api.tx.broker.interlace(later, FIRST_HALF), bob),
        await sign(api.tx.broker.interlace(halved, FIRST_HALF), alice),
      ])
    ).height;

    // Final assignments of whole-sale-length regions leave potential renewals: complete for
    // Bob's whole core, partial for Alice's half. The provisional one is a later workplan entry.
    const assigned = (
      await step('assigned', [
        await sign(api.tx.broker.assign(whole, assignedTasks.whole, 'Final'), bob),
        await sign(api.tx.broker.assign({ ...halved, mask: FIRST_HALF }, assignedTasks.half, 'Final'), alice),
        await sign(api.tx.broker.assign({ ...later, mask: FIRST_HALF }, assignedTasks.provisional, 'Provisional'), bob),
      ])
    ).height;

    // The next sale rotates in when the first sale's regions begin: the relay parent jumps to
    // where that timeslice is due, then the tick commits one timeslice a block until it is.
    await step('jumped', [], regionBegin * TIMESLICE_PERIOD - BROKER_CONFIG.advanceNotice);
    let rotated = 0;
    for (let tries = 0; tries < 8 && rotated === 0; tries++) {
      const built = await step('rotated', []);
      if ((await saleAt()).saleIndex > saleIndex) rotated = built.height;
    }
    if (rotated === 0) throw new Error('the second sale did not start');
    const head = (await step('head', [])).height;

    const regions = [
      { id: { begin: regionBegin, core: split.core, mask: FULL_MASK }, owner: bob.address, end: regionBegin + 1 },
      // A provisional assignment leaves the region with its owner, who may still change it.
      { id: { ...later, mask: FIRST_HALF }, owner: bob.address, end: regionEnd },
      { id: { ...later, mask: SECOND_HALF }, owner: bob.address, end: regionEnd },
      { id: { ...halved, mask: SECOND_HALF }, owner: alice.address, end: regionEnd },
    ];
    return {
      buyer: bob.address,
      secondBuyer: alice.address,
      reservedTask,
      leasedTasks,
      assignedTasks,
      regionBegin,
      regionEnd,
      regions,
      before,
      configured,
      reserved,
      leased,
      salesStarted,
      purchased,
      partitioned,
      assigned,
      rotated,
      head,
      relayParents,
    };
  } finally {
    await seeder.close();
  }
}
