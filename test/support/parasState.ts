// Parachain state on the relay devnet (Westend from its development genesis, which has
// no para at all), made at test time by real extrinsics signed by the dev accounts:
// Alice reserves and registers two para ids, sudo forces a lease and starts an auction,
// Alice bids and opens a crowdloan (nobody contributes: see below). One thing the runtime only
// does at a session change (an onboarding para becoming a parathread, every 600 blocks
// on Westend) is written with chopsticks' dev_setStorage instead.
import { ApiPromise, Keyring, WsProvider } from '@polkadot/api';
import type { SubmittableExtrinsic } from '@polkadot/api/types';
import { cryptoWaitReady } from '@polkadot/util-crypto';

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
  await cryptoWaitReady();
  const api = await ApiPromise.create({ provider: new WsProvider(wsUrl), noInitWarn: true });
  try {
    const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
    const [alice, bob] = ['//Alice', '//Bob'].map((uri) => keyring.addFromUri(uri));
    const nonces = new Map<string, number>();
    const sign = async (tx: SubmittableExtrinsic<'promise'>, who = alice) => {
      const nonce = nonces.get(who.address) ?? (await api.rpc.system.accountNextIndex(who.address)).toNumber();
      nonces.set(who.address, nonce + 1);
      return (await tx.signAsync(who, { nonce, era: 0 })).toHex();
    };
    const build = async (transactions: string[]) => {
      await api.rpc('dev_newBlock' as never, (transactions.length > 0 ? { transactions } : {}) as never);
      const header = await api.rpc.chain.getHeader();
      const included: string[] = (await api.rpc.chain.getBlock(header.hash)).block.extrinsics.map((extrinsic) => extrinsic.toHex());
      if (transactions.some((tx) => !included.includes(tx))) throw new Error(`the relay devnet left a paras seeding extrinsic out of block ${header.number}`);
      const events = await api.query.system.events.at(header.hash);
      const failed = events.filter(({ event }) => api.events.system.ExtrinsicFailed.is(event));
      if (failed.length > 0) throw new Error(`a paras seeding extrinsic failed: ${failed.map(({ event }) => event.data.toString()).join('; ')}`);
      for (const { event } of events)
        if (event.section === 'sudo' && event.method === 'Sudid' && !event.data.toString().includes('"ok"')) throw new Error(`sudo failed: ${event.data}`);
      return header.number.toNumber();
    };
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
    await api.disconnect();
  }
}
