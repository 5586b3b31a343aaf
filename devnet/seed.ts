// Fills a fresh devnet with the blocks a real user queries: transfers,
// batches, a failing call, assets, a fee paid in an asset, big remarks,
// proxy and multisig calls, empty blocks and one block of 500+ extrinsics.
// Every extrinsic is signed with the dev accounts' real sr25519 keys.
import { ApiPromise, Keyring, WsProvider } from '@polkadot/api';
import type { SubmittableExtrinsic } from '@polkadot/api/types';
import type { KeyringPair } from '@polkadot/keyring/types';
import { cryptoWaitReady } from '@polkadot/util-crypto';

import type { Devnet } from './chain';
import { seedVersion } from './seedVersion';

export const TARGET_HEIGHT = 210;
export const BIG_BLOCK_EXTRINSICS = 520;
const UNIT = 10n ** 12n;
const ASSET_ID = 1;
// Typed loosely: the generated polkadot.js types describe another runtime's pallets.
const NATIVE = { parents: 1, interior: 'Here' } as never;
const ASSET_LOCATION = { parents: 0, interior: { X2: [{ PalletInstance: 50 }, { GeneralIndex: ASSET_ID }] } } as never;

/** What the seeded chain holds, so tests and benchmarks can find the blocks they want. */
export interface SeedManifest {
  seedVersion: string;
  head: { number: number; hash: string };
  blocks: Record<string, number>;
  emptyBlocks: number[];
  seconds: number;
}

type Tx = SubmittableExtrinsic<'promise'>;

export async function seedChain(devnet: Devnet, progress: (done: number, total: number, label: string) => void) {
  const started = Date.now();
  await cryptoWaitReady();
  const api = await ApiPromise.create({ provider: new WsProvider(devnet.wsUrl), noInitWarn: true });
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  const [alice, bob, charlie, dave, eve, ferdie] = ['Alice', 'Bob', 'Charlie', 'Dave', 'Eve', 'Ferdie'].map((name) =>
    keyring.addFromUri(`//${name}`),
  );
  const fresh = keyring.addFromUri('//fastcar//fresh');
  // Nonces are counted here, taken before any await, so signing in parallel stays in order.
  const nonces = new Map<string, number>();
  const sign = async (tx: Tx, pair: KeyringPair, options: Record<string, unknown> = {}) => {
    const nonce = nonces.get(pair.address) ?? 0;
    nonces.set(pair.address, nonce + 1);
    // Immortal by default so the seed does not depend on when it runs; some are mortal below.
    return (await tx.signAsync(pair, { nonce, era: 0, ...options })).toHex();
  };

  const blocks: Record<string, number> = {};
  const emptyBlocks: number[] = [];
  const build = async (label: string, transactions: string[]) => {
    const block = await devnet.chain.newBlock(transactions.length ? { transactions: transactions as `0x${string}`[] } : undefined);
    const body = await block.extrinsics;
    const missing = transactions.filter((tx) => !body.includes(tx as `0x${string}`)).length;
    if (missing) throw new Error(`block ${block.number} (${label}): ${missing} of ${transactions.length} extrinsics were not included`);
    if (transactions.length) blocks[label] = block.number;
    else emptyBlocks.push(block.number);
    progress(block.number, TARGET_HEIGHT, label);
    return block;
  };

  const tx = api.tx;
  // The development preset endows Alice, Bob and their stashes; the others get theirs here.
  await build('endowments', await Promise.all(
    [charlie, dave, eve, ferdie].map((to) => sign(tx.balances.transferAllowDeath(to.address, 1000n * UNIT), alice)),
  ));
  await build('transfers', [
    await sign(tx.balances.transferKeepAlive(bob.address, 10n * UNIT), alice),
    await sign(tx.balances.transferAllowDeath(fresh.address, 5n * UNIT), bob),
    await sign(tx.balances.transferAllowDeath(dave.address, 3n * UNIT), charlie, { tip: 1_000_000n }),
    await sign(tx.balances.transferKeepAlive(eve.address, 2n * UNIT), dave, { era: undefined }),
  ]);
  await build('batches', [
    await sign(
      tx.utility.batch([
        tx.system.remark('0x6661737463617220626174636821'),
        tx.balances.transferKeepAlive(charlie.address, UNIT),
        tx.utility.batchAll([tx.system.remarkWithEvent('0x01'), tx.balances.transferKeepAlive(dave.address, UNIT)]),
      ]),
      alice,
    ),
    await sign(tx.utility.batchAll([tx.balances.transferKeepAlive(ferdie.address, UNIT), tx.system.remarkWithEvent('0x02')]), bob),
    // batch stops at the first failing call and reports BatchInterrupted, yet the extrinsic succeeds.
    await sign(tx.utility.batch([tx.system.remark('0x03'), tx.balances.transferKeepAlive(alice.address, 10n ** 30n)]), charlie),
    await sign(tx.utility.forceBatch([tx.balances.transferKeepAlive(alice.address, 10n ** 30n), tx.system.remark('0x04')]), dave),
  ]);
  await build('failures', [
    await sign(tx.balances.transferKeepAlive(alice.address, 10n ** 30n), eve),
    await sign(tx.utility.batchAll([tx.system.remark('0x05'), tx.balances.transferKeepAlive(bob.address, 10n ** 30n)]), ferdie),
    await sign(tx.assets.transfer(999, bob.address, 1), fresh),
  ]);
  await build('assetCreate', [
    await sign(tx.assets.create(ASSET_ID, alice.address, 1000), alice),
    await sign(tx.assets.setMetadata(ASSET_ID, 'Fastcar Dollar', 'FCD', 6), alice),
  ]);
  await build('assetMintTransfer', [
    await sign(tx.assets.mint(ASSET_ID, alice.address, 10n ** 15n), alice),
    await sign(tx.assets.mint(ASSET_ID, bob.address, 10n ** 12n), alice),
    await sign(tx.assets.transfer(ASSET_ID, charlie.address, 10n ** 9n), alice),
    await sign(tx.assets.transferKeepAlive(ASSET_ID, dave.address, 10n ** 9n), alice),
  ]);
  await build('assetPool', [
    await sign(tx.assetConversion.createPool(NATIVE, ASSET_LOCATION), alice),
  ]);
  await build('assetLiquidity', [
    await sign(
      tx.assetConversion.addLiquidity(NATIVE, ASSET_LOCATION, 1000n * UNIT, 10n ** 14n, 1n, 1n, alice.address),
      alice,
    ),
  ]);
  await build('feeInAsset', [
    await sign(tx.balances.transferKeepAlive(charlie.address, UNIT), bob, { assetId: ASSET_LOCATION }),
  ]);
  await build('bigRemarks', [
    await sign(tx.system.remark(`0x${'ab'.repeat(128 * 1024)}`), alice),
    await sign(tx.system.remarkWithEvent(`0x${'cd'.repeat(32 * 1024)}`), bob),
  ]);
  await build('proxyAdd', [await sign(tx.proxy.addProxy(bob.address, 'Any', 0), alice)]);
  await build('proxyCall', [
    await sign(tx.proxy.proxy(alice.address, null, tx.balances.transferKeepAlive(ferdie.address, UNIT)), bob),
  ]);
  const multisigCall = tx.balances.transferKeepAlive(ferdie.address, UNIT);
  const multisigAccount = keyring.encodeAddress(
    (await import('@polkadot/util-crypto')).createKeyMulti([alice.address, bob.address, charlie.address], 2),
    42,
  );
  await build('multisigFund', [
    await sign(tx.balances.transferKeepAlive(multisigAccount, 10n * UNIT), alice),
    await sign(tx.multisig.asMultiThreshold1([bob.address, charlie.address], tx.system.remarkWithEvent('0x06')), alice),
  ]);
  const maxWeight = (await multisigCall.paymentInfo(alice.address)).weight;
  const multisigApproveBlock = await build('multisigApprove', [
    await sign(tx.multisig.asMulti(2, [bob.address, charlie.address], null, multisigCall, maxWeight), alice),
  ]);
  const timepoint = { height: multisigApproveBlock.number, index: 2 };
  await build('multisigExecute', [
    await sign(tx.multisig.asMulti(2, [alice.address, charlie.address], timepoint, multisigCall, maxWeight), bob),
  ]);

  const senders = [alice, bob, charlie, dave, eve, ferdie];
  const big: string[] = [];
  for (let i = 0; i < BIG_BLOCK_EXTRINSICS; i++) {
    const from = senders[i % senders.length];
    const to = senders[(i + 1) % senders.length];
    const call = i % 5 === 4 ? tx.system.remarkWithEvent(`0x${i.toString(16).padStart(8, '0')}`) : tx.balances.transferKeepAlive(to.address, BigInt(i + 1) * 10n ** 9n);
    big.push(await sign(call, from));
  }
  await build('big', big);

  while (devnet.chain.head.number < TARGET_HEIGHT) {
    // Every 25th block a transfer, so the tail is not all empty.
    const next = devnet.chain.head.number + 1;
    if (next % 25 === 0) {
      await build(`transfer${next}`, [await sign(tx.balances.transferKeepAlive(bob.address, UNIT), ferdie)]);
    } else {
      await build('empty', []);
    }
  }
  await api.disconnect();
  const head = devnet.chain.head;
  const manifest: SeedManifest = {
    seedVersion: seedVersion() ?? 'unknown',
    head: { number: head.number, hash: head.hash },
    blocks,
    emptyBlocks,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  return manifest;
}
