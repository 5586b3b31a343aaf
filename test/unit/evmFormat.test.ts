// useEvmFormat: accounts in revive calls' revive events as pallet-revive's EVM addresses.
import { encodeAddress } from '@polkadot/util-crypto';

import { evmAddressOf, withEvmAddresses } from '../../src/services/blocks/evmFormat';

const ALICE = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';
// Alice's address under pallet-revive's mapping, as a revive node reports it (keccak-256 of the account, last 20 bytes).
const ALICE_EVM = '0x9621dde636de098b43efb0fa9b61facfe328f99d';
const H160 = '0x0102030405060708090a0b0c0d0e0f1011121314';
const ETH_DERIVED = encodeAddress(Uint8Array.from([...Buffer.from(H160.slice(2), 'hex'), ...new Uint8Array(12).fill(0xee)]), 42);

describe('evmAddressOf', () => {
  it('maps native accounts by keccak-256 and Ethereum-derived ones back to their 20 bytes', () => {
    expect(evmAddressOf(ALICE)).toBe(ALICE_EVM);
    expect(evmAddressOf(ETH_DERIVED)).toBe(H160);
  });

  it('leaves what is not an ss58 account alone', () => {
    for (const text of ['', 'Transfer', '0x123', `0x${'ab'.repeat(32)}`, H160, '1000000000000', ALICE.slice(0, -1)]) expect(evmAddressOf(text)).toBeUndefined();
  });
});

describe('withEvmAddresses', () => {
  const event = (pallet: string, data: unknown) => ({ method: { pallet, method: 'X' }, data });
  const block = (pallet: string) => ({
    number: '7',
    extrinsics: [
      { method: { pallet, method: 'call' }, events: [event('revive', [ALICE, { contract: ETH_DERIVED, note: 'kept' }]), event('balances', [ALICE])] },
      { method: { pallet: 'balances', method: 'transfer' }, events: [event('revive', [ALICE])] },
    ],
  });

  it('converts the revive events of revive calls only, deep in their data', () => {
    const out = JSON.parse(withEvmAddresses(JSON.stringify(block('revive'))));
    expect(out.extrinsics[0].events[0].data).toEqual([ALICE_EVM, { contract: H160, note: 'kept' }]);
    expect(out.extrinsics[0].events[1].data).toEqual([ALICE]); // a balances event of the same call
    expect(out.extrinsics[1].events[0].data).toEqual([ALICE]); // not a revive call
  });

  it('returns a block without revive calls byte for byte', () => {
    const json = JSON.stringify(block('utility'));
    expect(withEvmAddresses(json)).toBe(json);
  });

  it('converts the one extrinsic of an extrinsic answer', () => {
    const json = JSON.stringify({ at: { height: '7', hash: '0x00' }, extrinsics: block('revive').extrinsics[0] });
    expect(JSON.parse(withEvmAddresses(json)).extrinsics.events[0].data[0]).toBe(ALICE_EVM);
  });
});
