// A relay chain beside the devnet's Asset Hub, for tests and benchmarks of the
// relay routes: real Polkadot relay history (the recorded node), where relay block
// 18468942's inclusion of Asset Hub (para 1000) is re-pointed at a devnet block. Its
// head data (the parachain header the CandidateIncluded event carries) is replaced by
// the devnet block's header, byte for byte in the recorded events, so a service must
// find the devnet block from the relay chain's own data.
import { TypeRegistry } from '@polkadot/types';
import type { EventRecord, Header } from '@polkadot/types/interfaces';
import { compactToU8a, u8aConcat, u8aToHex } from '@polkadot/util';

import { decodeRecorded } from './recordedBlocks';
import { loadPolkadotRecording, startRecordedNode, type RecordedNode, type Recording } from './recordedNode';
import { connectRpc } from './rpcClient';

/** The recorded relay block that included seven parachain blocks, Asset Hub's among them. */
export const RELAY_BLOCK = 18468942;
const ASSET_HUB = 1000;

type Hex = `0x${string}`;

/** The recording with Asset Hub's inclusion in RELAY_BLOCK carrying `header` (SCALE) as its head data. */
async function pointedAt(original: Recording, header: Uint8Array): Promise<Recording> {
  const { events } = await decodeRecorded(original, RELAY_BLOCK);
  const record = (events as EventRecord[]).find(
    ({ event }) =>
      event.method === 'CandidateIncluded' &&
      (event.data[0] as unknown as { descriptor: { paraId: { toNumber(): number } } }).descriptor.paraId.toNumber() === ASSET_HUB,
  );
  if (!record) throw new Error('the recorded relay block has no Asset Hub inclusion');
  const headData = record.event.data[1].toU8a(); // with its length prefix, as the events hold it
  const copy = structuredClone(original);
  const block = copy.blocks.find((b) => b.number === RELAY_BLOCK)!;
  const encoded = block.events!.slice(2);
  const at = encoded.indexOf(u8aToHex(headData).slice(2));
  if (at < 0 || at % 2 !== 0) throw new Error('head data not found in the recorded events');
  const replacement = u8aConcat(compactToU8a(header.length), header);
  block.events = `0x${encoded.slice(0, at)}${u8aToHex(replacement).slice(2)}${encoded.slice(at + headData.length * 2)}` as Hex;
  // A child with no events, so a range of relay blocks (at least two) has one that included nothing.
  copy.blocks.push({
    ...block,
    number: RELAY_BLOCK + 1,
    hash: `0x${'ab'.repeat(32)}`,
    header: { ...block.header, parentHash: block.hash, number: `0x${(RELAY_BLOCK + 1).toString(16)}` },
    extrinsics: [],
    events: '0x00',
  });
  return copy;
}

export interface RelayBeside {
  node: RecordedNode;
  recording: Recording;
  /** The devnet block the relay block now includes. */
  included: { number: number; hash: string };
}

/** Serves the relay chain with RELAY_BLOCK including the devnet's block `number`. */
export async function startRelayBeside(devnetUrl: string, number: number): Promise<RelayBeside> {
  const rpc = await connectRpc(devnetUrl);
  try {
    const hash = await rpc.call<string>('chain_getBlockHash', [number]);
    const header = new TypeRegistry().createType('Header', await rpc.call('chain_getHeader', [hash])) as Header;
    const recording = await pointedAt(loadPolkadotRecording(), header.toU8a());
    return { node: await startRecordedNode(recording), recording, included: { number, hash } };
  } finally {
    rpc.close();
  }
}
