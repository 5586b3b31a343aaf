// What test state made by real extrinsics on a chopsticks devnet needs: the dev accounts'
// keys, signing with nonces counted here (several signed before a block is built), and a
// block built from chosen extrinsics that must all go in and all succeed (a sudo call
// included), so a seeding that silently did nothing fails where it happened.
import { ApiPromise, Keyring, WsProvider } from '@polkadot/api';
import type { SubmittableExtrinsic } from '@polkadot/api/types';
import type { KeyringPair } from '@polkadot/keyring/types';
import type { EventRecord } from '@polkadot/types/interfaces';
import { cryptoWaitReady } from '@polkadot/util-crypto';

export type SignedHex = `0x${string}`;

export interface Seeder {
  api: ApiPromise;
  alice: KeyringPair;
  bob: KeyringPair;
  /** `tx` signed by `who` (Alice), immortal, with the next nonce. */
  sign(tx: SubmittableExtrinsic<'promise'>, who?: KeyringPair): Promise<SignedHex>;
  /** A block of `transactions` (built on relay parent `relayParentNumber` where given, a parachain's): its height and events. */
  build(transactions: SignedHex[], relayParentNumber?: number): Promise<{ height: number; events: EventRecord[] }>;
  close(): Promise<void>;
}

/** `chainName` names the devnet in what a failure says. */
export async function openSeeder(wsUrl: string, chainName: string): Promise<Seeder> {
  await cryptoWaitReady();
  const api = await ApiPromise.create({ provider: new WsProvider(wsUrl), noInitWarn: true });
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  const [alice, bob] = ['//Alice', '//Bob'].map((uri) => keyring.addFromUri(uri)) as [KeyringPair, KeyringPair];
  const nonces = new Map<string, number>();
  return {
    api,
    alice,
    bob,
    async sign(tx, who = alice) {
      const nonce = nonces.get(who.address) ?? (await api.rpc.system.accountNextIndex(who.address)).toNumber();
      nonces.set(who.address, nonce + 1);
      return (await tx.signAsync(who, { nonce, era: 0 })).toHex();
    },
    async build(transactions, relayParentNumber) {
      const params = { ...(transactions.length > 0 ? { transactions } : {}), ...(relayParentNumber === undefined ? {} : { relayParentNumber }) };
      await api.rpc('dev_newBlock' as never, params as never);
      const header = await api.rpc.chain.getHeader();
      const included = (await api.rpc.chain.getBlock(header.hash)).block.extrinsics.map((extrinsic) => extrinsic.toHex());
      if (transactions.some((tx) => !included.includes(tx))) throw new Error(`the ${chainName} left a seeding extrinsic out of block ${header.number}`);
      const events = [...(await api.query.system.events.at(header.hash))];
      const failed = events.filter(({ event }) => api.events.system.ExtrinsicFailed.is(event));
      if (failed.length > 0) throw new Error(`a ${chainName} seeding extrinsic failed: ${failed.map(({ event }) => event.data.toString()).join('; ')}`);
      for (const { event } of events)
        if (api.events.sudo?.Sudid.is(event) && event.data.sudoResult.isErr)
          throw new Error(`sudo failed on the ${chainName}: ${event.data.sudoResult.toString()}`);
      return { height: header.number.toNumber(), events };
    },
    close: () => api.disconnect(),
  };
}
