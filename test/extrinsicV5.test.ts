// Blocks with extrinsics of format v5 on a fresh copy of the devnet, built here
// (test/support/v5Blocks.ts): one whose inherents and an unsigned transaction are
// v5 bare, beside a v4 signed transfer; one with a v5 general transaction (an
// Ethereum transaction in `revive.eth_transact`, no signature in the envelope,
// its fee paid by the account the runtime recovers). fastcar reads both with its
// compiled reading (no block handed to polkadot.js). The bare block is sidecar's
// answer, as sidecar reads it; sidecar fails on the general one, and fastcar's
// answer there is checked field by field against polkadot.js's reading of the
// block and its events. A general transaction signed through an extension
// (VerifySignature) cannot be made on this runtime, which has none: the fuzz in
// test/decodeFuzz.test.ts covers it with a patched metadata.
import { ApiPromise, Keyring, WsProvider } from '@polkadot/api';
import type { GenericExtrinsic } from '@polkadot/types';
import type { EventRecord } from '@polkadot/types/interfaces';
import { u8aToHex } from '@polkadot/util';
import { blake2AsHex, cryptoWaitReady } from '@polkadot/util-crypto';
import Ajv2020 from 'ajv/dist/2020';

import type { Devnet } from '../devnet/chain';
import { startFastcarOn } from '../harness/fastcar';
import { getJson, getReferenceJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import { toSidecarJson } from '../src/decode/codecJson';
import { openApiDocument } from '../src/controllers/families';
import type { Fastcar } from '../src/server';
import { decodeCounters } from '../src/services/blocks/bodyDecoding';
import { VERSION } from '../src/version';
import { startDevnet } from './support/devnet';
import { asBareV5, authorizeUpgrade, bareInherents, bareV5, ethAccount, ethTransfer, formatByte, generalV5 } from './support/v5Blocks';

const UNIT = 10n ** 12n;

let devnet: Devnet;
let api: ApiPromise;
let sidecar: Peer;
let fastcar: Fastcar;
const bare = { number: 0, hash: '', extrinsics: [] as string[] };
const general = { number: 0, hash: '', extrinsics: [] as string[], index: -1 };
let ethPayload: Uint8Array;

async function build(transactions: string[]) {
  const block = await devnet.chain.newBlock({ transactions: transactions as `0x${string}`[] });
  const extrinsics = await block.extrinsics;
  const missing = transactions.filter((tx) => !extrinsics.includes(tx as `0x${string}`));
  if (missing.length) throw new Error(`block ${block.number}: ${missing.length} of ${transactions.length} transactions were not included`);
  return { number: block.number, hash: block.hash, extrinsics: [...extrinsics] };
}

beforeAll(async () => {
  await cryptoWaitReady();
  ({ devnet } = await startDevnet());
  api = await ApiPromise.create({ provider: new WsProvider(devnet.wsUrl), noInitWarn: true });
  const alice = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromUri('//Alice');
  const eth = ethAccount(0x42);
  const nonce = (await api.rpc.system.accountNextIndex(alice.address)).toNumber();

  // Bare: the inherents and an unsigned upgrade (of made-up code, authorized first, refused in dispatch) as v5,
  // and a v4 signed transfer that funds the Ethereum account's fallback.
  const code = new Uint8Array(64).fill(7);
  await authorizeUpgrade(api, devnet, code);
  const fund = (await api.tx.balances.transferKeepAlive(u8aToHex(eth.fallback), 100n * UNIT).signAsync(alice, { nonce, era: 0 })).toHex();
  const upgrade = bareV5(api.tx.system.applyAuthorizedUpgrade(u8aToHex(code)).method.toU8a());
  const restore = bareInherents(devnet);
  try {
    Object.assign(bare, await build([fund, upgrade]));
  } finally {
    restore();
  }

  // General: the Ethereum transaction, beside the (v4) inherents and a v4 signed remark.
  ethPayload = await ethTransfer(api, eth, `0x${'11'.repeat(20)}`, 0n);
  const remark = (await api.tx.system.remarkWithEvent('0x763521').signAsync(alice, { nonce: nonce + 1, era: 0 })).toHex();
  const ethTransact = generalV5(api.tx.revive.ethTransact(u8aToHex(ethPayload)).method.toU8a());
  Object.assign(general, await build([remark, ethTransact]));
  general.index = general.extrinsics.indexOf(ethTransact);

  [sidecar, fastcar] = await Promise.all([startSidecar(devnet.wsUrl), startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' })]);
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close()]);
  await api?.disconnect();
  await devnet?.close();
});

/** fastcar's answer to `path`, and how its blocks were read meanwhile. */
async function fromFastcar(path: string) {
  const before = { ...decodeCounters };
  const answer = await getJson(fastcar.url + path);
  return { ...answer, compiled: decodeCounters.compiled - before.compiled, fallback: decodeCounters.fallback - before.fallback };
}

it('built the blocks it means to: v5 bare inherents and transaction, a v5 general transaction', () => {
  expect(bare.extrinsics.map(formatByte)).toEqual([0x05, 0x05, 0x84, 0x05]);
  expect(general.extrinsics.map(formatByte)).toEqual([0x04, 0x04, 0x84, 0x45]);
  expect(general.index).toBe(3);
  expect(asBareV5(general.extrinsics[0])).not.toBe(general.extrinsics[0]);
});

describe('a block of v5 bare extrinsics', () => {
  const paths = () => [
    `/blocks/${bare.number}`,
    `/blocks/${bare.hash}`,
    `/blocks/${bare.number}?noFees=true`,
    `/blocks/${bare.number}?eventDocs=true&extrinsicDocs=true`,
    ...bare.extrinsics.map((_, i) => `/blocks/${bare.number}/extrinsics/${i}?extrinsicDocs=true`),
    `/blocks/${bare.number}/extrinsics-raw`,
  ];

  it('is answered as sidecar answers it, by the compiled reading', async () => {
    let compiled = 0;
    for (const path of paths()) {
      const [theirs, ours] = await Promise.all([getReferenceJson(sidecar.url + path), fromFastcar(path)]);
      expect({ path, status: ours.status, fallback: ours.fallback }).toEqual({ path, status: theirs.status, fallback: 0 });
      expect(ours.body).toEqual(theirs.body);
      compiled += ours.compiled;
    }
    // Each block answer that was built (not a cache hit) was read by the compiled reading.
    expect(compiled).toBeGreaterThanOrEqual(3);
  });

  it('shows the bare extrinsics as unsigned ones, with their events and no fee', async () => {
    const { body } = await fromFastcar(`/blocks/${bare.number}`);
    const extrinsics = (
      body as { extrinsics: { method: { method: string }; signature: unknown; paysFee: boolean; info: object; events: { method: { method: string } }[] }[] }
    ).extrinsics;
    expect(extrinsics.map((extrinsic) => extrinsic.method.method)).toEqual(['set', 'setValidationData', 'transferKeepAlive', 'applyAuthorizedUpgrade']);
    const upgrade = extrinsics[3];
    // Included as valid, then refused in dispatch (the code is no runtime), which the runtime reports as an event.
    expect(upgrade).toMatchObject({ signature: null, nonce: null, tip: null, paysFee: false, info: {}, success: true });
    expect(upgrade.events.map((event) => event.method.method)).toEqual(['RejectedInvalidAuthorizedUpgrade', 'ExtrinsicSuccess']);
    expect(upgrade).not.toHaveProperty('version');
    expect(extrinsics[2]).toMatchObject({ signature: { signer: { id: expect.any(String) } }, paysFee: true, info: { kind: 'fromEvent' } });
  });
});

describe('a block with a v5 general transaction', () => {
  /** What polkadot.js and the block's events say of the general transaction: the expected answer, field by field. */
  async function expectedGeneral(options: { fees: boolean; docs: boolean }) {
    const signedBlock = await api.rpc.chain.getBlock(general.hash);
    const extrinsic = signedBlock.block.extrinsics[general.index] as unknown as GenericExtrinsic;
    expect(extrinsic.isGeneral()).toBe(true);
    const records = ((await api.query.system.events.at(general.hash)) as unknown as EventRecord[]).filter(
      ({ phase }) => phase.isApplyExtrinsic && phase.asApplyExtrinsic.toNumber() === general.index,
    );
    const feePaid = records.find(({ event }) => event.section === 'transactionPayment' && event.method === 'TransactionFeePaid')!;
    const success = records.find(({ event }) => event.method === 'ExtrinsicSuccess')!;
    const dispatchInfo = toSidecarJson(success.event.data[0]) as { weight: unknown; class: string; paysFee: string };
    const inner = extrinsic.inner as unknown as { transactionExtensionVersion: { toNumber(): number } };
    return {
      method: { pallet: extrinsic.method.section, method: extrinsic.method.method },
      signature: null,
      nonce: extrinsic.nonce.toString(),
      args: { payload: u8aToHex(ethPayload) },
      tip: extrinsic.tip.toString(),
      // Of the bytes as the block carries them: polkadot.js 16.5.6 re-encodes a general
      // extrinsic with its length and format byte twice (so its `hash` is not the extrinsic's).
      hash: blake2AsHex(general.extrinsics[general.index], 256),
      info: options.fees ? { weight: dispatchInfo.weight, class: dispatchInfo.class, partialFee: feePaid.event.data[1].toString(), kind: 'fromEvent' } : {},
      era: toSidecarJson(extrinsic.era),
      events: records.map(({ event }) => ({
        method: { pallet: event.section, method: event.method },
        data: toSidecarJson(event.data),
        ...(options.docs ? { docs: event.meta.docs.map(String).join('\n') } : {}),
      })),
      success: true,
      paysFee: dispatchInfo.paysFee === 'Yes',
      version: 5,
      transactionExtensionVersion: inner.transactionExtensionVersion.toNumber(),
      ...(options.docs ? { docs: extrinsic.meta.docs.map(String).join('\n') } : {}),
    };
  }

  it('is what sidecar fails on', async () => {
    const theirs = await getReferenceJson(`${sidecar.url}/blocks/${general.number}`);
    expect(theirs.status).toBe(500);
  });

  it('is answered by the compiled reading, by number and by hash: the general transaction as polkadot.js and the events say', async () => {
    const expected = await expectedGeneral({ fees: true, docs: false });
    expect(expected).toMatchObject({ method: { pallet: 'revive', method: 'ethTransact' }, paysFee: true, transactionExtensionVersion: 0 });
    expect(api.createType('Extrinsic', general.extrinsics[general.index]).toHex()).not.toBe(general.extrinsics[general.index]);
    const byNumber = await fromFastcar(`/blocks/${general.number}`);
    expect([byNumber.status, byNumber.compiled, byNumber.fallback]).toEqual([200, 1, 0]);
    const answer = byNumber.body as { hash: string; extrinsics: unknown[] };
    expect(answer.hash).toBe(general.hash);
    expect(answer.extrinsics[general.index]).toEqual(expected);
    const byHash = await fromFastcar(`/blocks/${general.hash}`);
    expect([byHash.status, byHash.fallback]).toEqual([200, 0]);
    expect(byHash.body).toEqual(byNumber.body);
  });

  it('without fees and with docs', async () => {
    const noFees = await fromFastcar(`/blocks/${general.number}?noFees=true`);
    expect(noFees.fallback).toBe(0);
    expect((noFees.body as { extrinsics: unknown[] }).extrinsics[general.index]).toEqual(await expectedGeneral({ fees: false, docs: false }));
    const docs = await fromFastcar(`/blocks/${general.number}?eventDocs=true&extrinsicDocs=true`);
    expect(docs.fallback).toBe(0);
    expect((docs.body as { extrinsics: unknown[] }).extrinsics[general.index]).toEqual(await expectedGeneral({ fees: true, docs: true }));
  });

  it('the other extrinsics of the block are as in blocks sidecar reads: v4, without the v5 fields', async () => {
    const { body } = await fromFastcar(`/blocks/${general.number}`);
    const extrinsics = (body as { extrinsics: Record<string, unknown>[] }).extrinsics;
    for (const [i, extrinsic] of extrinsics.entries()) {
      if (i === general.index) continue;
      expect(extrinsic).not.toHaveProperty('version');
      expect(extrinsic).not.toHaveProperty('transactionExtensionVersion');
    }
    expect(extrinsics[2]).toMatchObject({ method: { pallet: 'system', method: 'remarkWithEvent' }, paysFee: true, info: { kind: 'fromEvent' } });
  });

  it('one extrinsic, and the raw extrinsics: as the block answer has it, and as the block carries them', async () => {
    const block = (await fromFastcar(`/blocks/${general.number}`)).body as { extrinsics: unknown[] };
    const single = await fromFastcar(`/blocks/${general.number}/extrinsics/${general.index}`);
    expect(single.body).toEqual({ at: { height: String(general.number), hash: general.hash }, extrinsics: block.extrinsics[general.index] });
    const raw = await fromFastcar(`/blocks/${general.hash}/extrinsics-raw`);
    expect((raw.body as { extrinsics: string[] }).extrinsics).toEqual(general.extrinsics);
  });

  it('is described by the OpenAPI document', async () => {
    const document = openApiDocument(VERSION) as { components: unknown };
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'fastcar', components: document.components });
    const answers: [string, string][] = [
      [`/blocks/${general.number}`, 'Block'],
      [`/blocks/${general.number}?noFees=true&eventDocs=true&extrinsicDocs=true`, 'Block'],
      [`/blocks/${general.number}/extrinsics/${general.index}`, 'ExtrinsicAt'],
    ];
    for (const [path, schema] of answers) {
      const check = ajv.compile({ $ref: `fastcar#/components/schemas/${schema}` });
      const { body } = await fromFastcar(path);
      expect([path, check(body) ? [] : check.errors]).toEqual([path, []]);
    }
  });
});
