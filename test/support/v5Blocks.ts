// Builds devnet blocks with extrinsics of format v5, by hand where polkadot.js
// and chopsticks do not make them (the devnet's runtime, Asset Hub Westend
// 0.57.0, accepts versions 4 and 5 and lists one extension version, 0):
//
// - bare (0x05): the block's inherents as chopsticks makes them, re-encoded as
//   v5 bare (the same call, version byte 5), and an unsigned transaction, a
//   `system.apply_authorized_upgrade` of code whose hash is authorized in state
//   (the runtime validates it unsigned; its dispatch then fails, the code being
//   no runtime, so the chain keeps its own);
// - general (0x45, extension version, the extensions' data, the call): a
//   `revive.eth_transact` carrying an Ethereum transaction signed with
//   secp256k1. The envelope has no signature: the runtime recovers the signer
//   from the call and charges that account's fallback (its 20 bytes and twelve
//   0xEE). This runtime has no `VerifySignature` extension and no call that
//   `AuthorizeCall` authorizes: a general transaction without such an origin is
//   rejected as UnknownOrigin, so this is the general kind it can include.
import type { ApiPromise } from '@polkadot/api';
import { setStorage } from '@acala-network/chopsticks-core';
import { compactAddLength, hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import { blake2AsU8a, ethereumEncode, secp256k1PairFromSeed, secp256k1Sign } from '@polkadot/util-crypto';

import type { Devnet } from '../../devnet/chain';

type Hex = `0x${string}`;

/** The length prefix's size, to find the version byte after it. */
function prefixLength(bytes: Uint8Array): number {
  const mode = bytes[0] & 3;
  return mode === 0 ? 1 : mode === 1 ? 2 : mode === 2 ? 4 : 5 + (bytes[0] >> 2);
}

/** A v4 unsigned extrinsic as v5 bare: the same bytes but the version. */
export function asBareV5(hex: string): Hex {
  const bytes = hexToU8a(hex);
  const at = prefixLength(bytes);
  if (bytes[at] !== 0x04) throw new Error(`not a v4 unsigned extrinsic: version byte ${bytes[at]}`);
  const out = bytes.slice();
  out[at] = 0x05;
  return u8aToHex(out);
}

/** The version byte of an extrinsic as a block carries it. */
export function formatByte(hex: string): number {
  const bytes = hexToU8a(hex);
  return bytes[prefixLength(bytes)];
}

/** `call` as a v5 bare extrinsic. */
export function bareV5(call: Uint8Array): Hex {
  return u8aToHex(compactAddLength(u8aConcat([0x05], call)));
}

/** `call` as a v5 general transaction of extension version 0 with the devnet runtime's extension data, all defaults. */
export function generalV5(call: Uint8Array): Hex {
  // Version 0's extensions with data: CheckMortality (immortal), CheckNonce (0),
  // ChargeAssetTxPayment (tip 0, native), CheckMetadataHash (disabled).
  const extensions = [0x00, 0x00, 0x00, 0x00, 0x00];
  return u8aToHex(compactAddLength(u8aConcat([0x45, 0x00], extensions, call)));
}

/** Makes the chain's inherents v5 bare until the returned function restores them. */
export function bareInherents(devnet: Devnet): () => void {
  const providers = devnet.chain.getInherents() as { createInherents(...args: unknown[]): Promise<string[]> }[];
  const originals = [...providers];
  providers.forEach((provider, i) => {
    providers[i] = { createInherents: async (...args: unknown[]) => (await provider.createInherents(...args)).map(asBareV5) };
  });
  return () => {
    originals.forEach((provider, i) => {
      providers[i] = provider;
    });
  };
}

/**
 * Authorizes an upgrade to `code` in the head's state, as `authorize_upgrade` would: with
 * the version check, so that code which is no runtime is refused when applied, not enacted.
 */
export async function authorizeUpgrade(api: ApiPromise, devnet: Devnet, code: Uint8Array): Promise<void> {
  const authorization = api.registry.createType('FrameSystemCodeUpgradeAuthorization', { codeHash: blake2AsU8a(code, 256), checkVersion: true });
  await setStorage(devnet.chain, [[api.query.system.authorizedUpgrade.key(), authorization.toHex()]]);
}

// A few lines of RLP: what a legacy Ethereum transaction needs.
function rlpLength(length: number, offset: number): Uint8Array {
  if (length < 56) return new Uint8Array([offset + length]);
  const bytes = bigBytes(BigInt(length));
  return u8aConcat([offset + 55 + bytes.length], bytes);
}

function bigBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array();
  const hex = value.toString(16);
  return hexToU8a(`0x${hex.length % 2 ? '0' : ''}${hex}`);
}

function rlpString(bytes: Uint8Array): Uint8Array {
  return bytes.length === 1 && bytes[0] < 0x80 ? bytes : u8aConcat(rlpLength(bytes.length, 0x80), bytes);
}

function rlpList(items: Uint8Array[]): Uint8Array {
  const body = u8aConcat(...items);
  return u8aConcat(rlpLength(body.length, 0xc0), body);
}

const rlpNumber = (value: bigint) => rlpString(bigBytes(value));

function withoutLeadingZeros(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

export interface EthAccount {
  address: Hex;
  /** The account fees are charged to: the address and twelve 0xEE bytes. */
  fallback: Uint8Array;
  secretKey: Uint8Array;
}

export function ethAccount(seedByte: number): EthAccount {
  const pair = secp256k1PairFromSeed(new Uint8Array(32).fill(seedByte));
  const address = ethereumEncode(pair.publicKey) as Hex;
  return { address, fallback: u8aConcat(hexToU8a(address), new Uint8Array(12).fill(0xee)), secretKey: pair.secretKey };
}

/**
 * A signed legacy (EIP-155) Ethereum transaction of `value` to `to`, its gas as the
 * runtime's own estimate (`ReviveApi_eth_transact`) gives it: the RLP payload of
 * `revive.eth_transact`.
 */
export async function ethTransfer(api: ApiPromise, from: EthAccount, to: Hex, nonce: bigint): Promise<Uint8Array> {
  const chainId = BigInt((api.consts.revive as unknown as { chainId: { toString(): string } }).chainId.toString());
  // Above the runtime's base fee (about 1e9 on the devnet); the rest is a tip.
  const gasPrice = 2_000_000_000n;
  const estimate = await (
    api.call.reviveApi as unknown as { ethTransact(tx: unknown): Promise<{ isOk: boolean; asOk: { ethGas: { toString(): string } }; toString(): string }> }
  ).ethTransact({
    from: from.address,
    to,
    value: 0,
    input: { 0: '0x' },
    gasPrice,
    chainId,
    nonce,
  });
  if (!estimate.isOk) throw new Error(`the runtime's estimate failed: ${estimate.toString()}`);
  const gas = BigInt(estimate.asOk.ethGas.toString());
  const fields = [rlpNumber(nonce), rlpNumber(gasPrice), rlpNumber(gas), rlpString(hexToU8a(to)), rlpNumber(0n), rlpString(new Uint8Array())];
  const signature = secp256k1Sign(rlpList([...fields, rlpNumber(chainId), rlpNumber(0n), rlpNumber(0n)]), { secretKey: from.secretKey }, 'keccak');
  const v = chainId * 2n + 35n + BigInt(signature[64]);
  return rlpList([
    ...fields,
    rlpNumber(v),
    rlpString(withoutLeadingZeros(signature.subarray(0, 32))),
    rlpString(withoutLeadingZeros(signature.subarray(32, 64))),
  ]);
}
