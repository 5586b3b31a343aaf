// Signed extrinsics for tests on the devnet: the dev accounts' real sr25519 keys,
// signed through polkadot.js against the devnet's own metadata (nonces from the chain).
import { ApiPromise, Keyring, WsProvider } from '@polkadot/api';
import type { KeyringPair } from '@polkadot/keyring/types';
import { cryptoWaitReady } from '@polkadot/util-crypto';

export interface Signer {
  api: ApiPromise;
  sender: KeyringPair;
  recipient: KeyringPair;
  /** A transfer from the sender to the recipient, signed (immortal, so it does not depend on when it is built). */
  transfer(amount: bigint): Promise<`0x${string}`>;
  /** A `system.remark` of `bytes` bytes from the sender, signed. */
  remark(bytes: number, fill?: number): Promise<`0x${string}`>;
  close(): Promise<void>;
}

/**
 * Alice to Bob unless said. Suites that send transactions beside the shared real node each sign
 * with an account no other suite signs with (the nonce is counted here): transactionPost Alice,
 * walletClient Charlie.
 */
export async function devnetSigner(
  wsUrl: string,
  accounts: { sender: string; recipient: string } = { sender: '//Alice', recipient: '//Bob' },
): Promise<Signer> {
  await cryptoWaitReady();
  const api = await ApiPromise.create({ provider: new WsProvider(wsUrl), noInitWarn: true });
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  const sender = keyring.addFromUri(accounts.sender);
  const recipient = keyring.addFromUri(accounts.recipient);
  // Counted here once read, so several signed before a block is built get consecutive nonces.
  let nonce: number | undefined;
  const nextNonce = async () => {
    nonce ??= (await api.rpc.system.accountNextIndex(sender.address)).toNumber();
    return nonce++;
  };
  const sign = async (tx: ReturnType<ApiPromise['tx']['system']['remark']>) => (await tx.signAsync(sender, { nonce: await nextNonce(), era: 0 })).toHex();
  return {
    api,
    sender,
    recipient,
    transfer: (amount) => sign(api.tx.balances.transferKeepAlive(recipient.address, amount)),
    remark: (bytes, fill = 0xab) => sign(api.tx.system.remark(`0x${fill.toString(16).padStart(2, '0').repeat(bytes)}`)),
    close: () => api.disconnect(),
  };
}
