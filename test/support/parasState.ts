// Parachain state on the relay devnet (Westend from its development genesis, which has
// no para at all), made at test time by real extrinsics signed by the dev accounts:
// Alice reserves and registers two para ids, sudo forces a lease and starts an auction,
// Alice bids and opens a crowdloan (nobody contributes: see below). One thing the runtime only
// does at a session change (an onboarding para becoming a parathread, every 600 blocks
// on Westend) is written with chopsticks' dev_setStorage instead.
import { openSeeder, type SignedHex } from './devnetSeeder';

export interface ParasState {
  /** The para made a parathread (leased, bid for, crowdfunded) and the one left onboarding. */
  parathread: number;
  onboarding: number;
  /** The height before any para existed, and the heights after each step. */
  before: number;
  registered: number;
  leased: number;
  /** The auction started; bid for (still in its opening period); in its ending period, with a contribution. */
  opened: number;
  auction: number;
  ending: number;
  crowdloan: number;
  /** The head once everything is in. */
  head: number;
}

/** A genesis head and a validation code small enough for the development configuration. */
const GENESIS_HEAD = `0x${'00'.repeat(32)}`;
const CODE = (seed: number) => `0x0061736d01000000${seed.toString(16).padStart(2, '0').repeat(24)}`;

export async function seedParas(wsUrl: string): Promise<ParasState> {
  const seeder = await openSeeder(wsUrl, 'relay devnet');
  try {
    const { api, alice, bob, sign } = seeder;
    const build = async (transactions: SignedHex[]) => (await seeder.build(transactions)).height;
    const before = (await api.rpc.chain.getHeader()).number.toNumber();
    const first = Number((await api.query.registrar.nextFreeParaId()).toString());
    const [parathread, onboarding] = [first, first + 1];
    await build([await sign(api.tx.registrar.reserve()), await sign(api.tx.registrar.reserve())]);
    const registered = await build([
      await sign(api.tx.registrar.register(parathread, GENESIS_HEAD, CODE(1))),
      await sign(api.tx.registrar.register(onboarding, GENESIS_HEAD, CODE(2))),
    ]);
    // What a session change would do: the first para's PVF accepted, the para a parathread.
    await api.rpc('dev_setStorage' as never, { Paras: { ParaLifecycles: [[[parathread], 'Parathread']] } } as never);
    // Para 2000 leases periods 1 and 2 (its Leases entry starts with an empty current period);
    // the onboarding para the current period, so it is a current lease holder.
    const leased = await build([
      await sign(api.tx.sudo.sudo(api.tx.slots.forceLease(parathread, bob.address, 5_000_000_000_000n, 1, 2))),
      await sign(api.tx.sudo.sudo(api.tx.slots.forceLease(onboarding, alice.address, 1_000_000_000_000n, 0, 1))),
    ]);
    // An auction whose ending period starts two blocks on: bid for in its opening period,
    // then read in its ending period (where the winning bids are sampled).
    const opened = await build([await sign(api.tx.sudo.sudo(api.tx.auctions.newAuction(2, 3)))]);
    const auction = await build([await sign(api.tx.auctions.bid(parathread, 1, 3, 4, 2_000_000_000_000n))]);
    const crowdloan = await build([await sign(api.tx.crowdloan.create(parathread, 100_000_000_000_000n, 3, 6, opened + 10_000, null))]);
    // No contribution: a crowdloan keeps its contributions in a child trie, which chopsticks
    // cannot read from a genesis-started chain (childstate_getStorage), so contribute fails there.
    const ending = await build([]);
    const head = await build([]);
    return { parathread, onboarding, before, registered, leased, opened, auction, crowdloan, ending, head };
  } finally {
    await seeder.close();
  }
}
