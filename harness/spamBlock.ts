// A block of thousands of signed `system.remarkWithEvent` extrinsics (the
// inscription floods that hurt sidecar's users most), made without executing
// anything: building one in chopsticks takes longer than a test can wait, and
// fastcar only decodes. The extrinsics are signed by dev keys with the devnet's
// real metadata; each carries the events a real remarkWithEvent got on the
// devnet (copied from a seeded block, renumbered). A JSON-RPC node in front of
// the devnet serves the block as the child of its best block and passes every
// other call through (calls at the new block are asked at its parent).
import { Keyring } from '@polkadot/keyring';
import { Metadata, TypeRegistry } from '@polkadot/types';
import type { EventRecord, Header } from '@polkadot/types/interfaces';
import { compactToU8a, hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import { blake2AsHex, cryptoWaitReady } from '@polkadot/util-crypto';

import { startTap } from './rpcTap';
import { connectRpc } from './rpcClient';

type Hex = `0x${string}`;

const SYSTEM_EVENTS: Hex = '0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7';
const SIGNERS = ['//Alice', '//Bob', '//Charlie', '//Dave', '//Eve', '//Ferdie'];

export interface SpamNode {
  url: string;
  number: number;
  hash: Hex;
  extrinsics: number;
  /** The block's extrinsics and events in bytes, as the node hands them over. */
  bytes: number;
  close(): Promise<void>;
}

/**
 * Makes the block (`count` remarks of `remarkBytes` each, events copied from
 * the seeded remark block `templateBlock`) and serves it in front of `devnetUrl`.
 */
export async function startSpamNode(devnetUrl: string, options: { count: number; templateBlock: number; remarkBytes?: number }): Promise<SpamNode> {
  await cryptoWaitReady();
  const devnet = await connectRpc(devnetUrl);
  const call = <T>(method: string, params: unknown[] = []) => devnet.call<T>(method, params);

  const best = await call<{ parentHash: Hex; number: Hex; stateRoot: Hex; extrinsicsRoot: Hex; digest: { logs: Hex[] } }>('chain_getHeader');
  const parentHash = await call<Hex>('chain_getBlockHash', [parseInt(best.number, 16)]);
  const [metadataHex, properties, version, genesisHash, templateHash] = await Promise.all([
    call<Hex>('state_getMetadata', [parentHash]),
    call<Record<string, unknown>>('system_properties'),
    call<{ specVersion: number; transactionVersion: number }>('state_getRuntimeVersion', [parentHash]),
    call<Hex>('chain_getBlockHash', [0]),
    call<Hex>('chain_getBlockHash', [options.templateBlock]),
  ]);
  const [template, templateEvents] = await Promise.all([
    call<{ block: { extrinsics: Hex[] } }>('chain_getBlock', [templateHash]),
    call<Hex>('state_getStorage', [SYSTEM_EVENTS, templateHash]),
  ]);
  devnet.close();

  const registry = new TypeRegistry();
  registry.setChainProperties(registry.createType('ChainProperties', properties));
  registry.setMetadata(new Metadata(registry, metadataHex));

  // The template's inherents (timestamp, validation data) and their events stay; its remarkWithEvent's events are the pattern.
  const templateRecords = registry.createType('Vec<EventRecord>', hexToU8a(templateEvents)) as unknown as EventRecord[];
  const templateCalls = template.block.extrinsics.map((hex) => registry.createType('Extrinsic', hex));
  const remarkIndex = templateCalls.findIndex((extrinsic) => extrinsic.isSigned && extrinsic.method.method === 'remarkWithEvent');
  if (remarkIndex < 0) throw new Error(`block ${options.templateBlock} has no signed remarkWithEvent`);
  const inherents = templateCalls.filter((extrinsic) => !extrinsic.isSigned);
  const phaseOf = (record: EventRecord) => (record.phase.isApplyExtrinsic ? record.phase.asApplyExtrinsic.toNumber() : -1);
  const pattern = templateRecords.filter((record) => phaseOf(record) === remarkIndex).map((record) => record.toU8a());
  const before = templateRecords.filter((record) => record.phase.isInitialization || (record.phase.isApplyExtrinsic && phaseOf(record) < inherents.length));
  const after = templateRecords.filter((record) => record.phase.isFinalization);

  const keyring = new Keyring({ type: 'sr25519', ss58Format: registry.chainSS58 });
  const pairs = SIGNERS.map((uri) => keyring.addFromUri(uri));
  const remarkBytes = options.remarkBytes ?? 64;
  const extrinsics: Hex[] = inherents.map((extrinsic) => extrinsic.toHex());
  const records: Uint8Array[] = before.map((record) => record.toU8a());
  for (let i = 0; i < options.count; i++) {
    const inscription = `data:,{"p":"dot-20","op":"mint","tick":"FAST","amt":"${i}"}`.padEnd(remarkBytes, ' ').slice(0, remarkBytes);
    const extrinsic = registry.createType(
      'Extrinsic',
      registry.createType('Call', { callIndex: registry.findMetaCall(templateCalls[remarkIndex].callIndex).callIndex, args: { remark: inscription } }),
    );
    extrinsic.sign(pairs[i % pairs.length], {
      blockHash: genesisHash,
      genesisHash,
      nonce: 1_000 + Math.floor(i / pairs.length),
      runtimeVersion: registry.createType('RuntimeVersion', version),
      signedExtensions: registry.signedExtensions,
    });
    extrinsics.push(extrinsic.toHex());
    const index = extrinsics.length - 1;
    for (const record of pattern) {
      const renumbered = record.slice();
      new DataView(renumbered.buffer, renumbered.byteOffset).setUint32(1, index, true); // phase: ApplyExtrinsic(index)
      records.push(renumbered);
    }
  }
  for (const record of after) records.push(record.toU8a());
  const eventsHex = u8aToHex(u8aConcat(compactToU8a(records.length), ...records));

  const number = parseInt(best.number, 16) + 1;
  const rpcHeader = {
    parentHash,
    number: `0x${number.toString(16)}`,
    stateRoot: best.stateRoot,
    extrinsicsRoot: blake2AsHex(u8aConcat(...extrinsics.map((hex) => hexToU8a(hex)))),
    digest: best.digest,
  };
  const hash = (registry.createType('Header', rpcHeader) as Header).hash.toHex();

  // The new block's own data is answered here; anything else asked at it is asked at its parent, whose state it has.
  const relay = await startTap(devnetUrl, 0, 0, ({ method, params = [] }) => {
    if (method === 'chain_getBlockHash' && params[0] === number) return { result: hash };
    if (method === 'chain_getBlock' && params[0] === hash) return { result: { block: { header: rpcHeader, extrinsics }, justifications: null } };
    if (method === 'chain_getHeader' && params[0] === hash) return { result: rpcHeader };
    if (method === 'state_getStorage' && params[0] === SYSTEM_EVENTS && params[1] === hash) return { result: eventsHex };
    return params.includes(hash) ? { params: params.map((param) => (param === hash ? parentHash : param)) } : undefined;
  });

  return {
    url: relay.url,
    number,
    hash,
    extrinsics: extrinsics.length,
    bytes: extrinsics.reduce((sum, hex) => sum + (hex.length - 2) / 2, 0) + (eventsHex.length - 2) / 2,
    close: () => relay.close(),
  };
}
