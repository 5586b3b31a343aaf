// Recorded mainnet blocks decoded as the service decodes them, without a node:
// the runtime registry is fed from the recording, so pure pieces (shaping, fees)
// can be tested on real data in unit tests.
import type { Block, EventRecord, AccountId } from '@polkadot/types/interfaces';
import { hexToU8a } from '@polkadot/util';

import type { NodeClient, RpcRuntimeVersion } from '../src/rpc/nodeClient';
import { RuntimeRegistry, type Runtime } from '../src/services/runtimes';
import type { Recording, RecordedBlock } from './recordedNode';

/** Answers the calls RuntimeRegistry and the fee queries make, from the recording; anything else throws. */
export function recordedNodeClient(recording: Recording, block: RecordedBlock): NodeClient {
  const runtime = recording.runtimes[block.runtime];
  const answers: Record<string, (params: unknown[]) => unknown> = {
    system_properties: () => recording.properties,
    system_chain: () => recording.chain,
    state_getMetadata: () => recording.metadata[runtime.metadataFrom],
    payment_queryInfo: ([extrinsic]) => recording.rpc.payment_queryInfo[extrinsic as `0x${string}`],
    payment_queryFeeDetails: ([extrinsic]) => recording.rpc.payment_queryFeeDetails[extrinsic as `0x${string}`],
  };
  const send = async (method: string, params: unknown[]) => {
    const answer = answers[method]?.(params);
    if (answer === undefined) throw new Error(`not recorded: ${method}`);
    return answer;
  };
  return {
    send,
    getMetadata: () => send('state_getMetadata', []),
    call: async (method: string, data: `0x${string}`) => {
      if (method === 'Metadata_metadata_versions') throw new Error('not recorded');
      const answer = recording.stateCalls[method]?.[data];
      if (answer === undefined) throw new Error(`not recorded: ${method}`);
      return answer;
    },
  } as unknown as NodeClient;
}

export interface DecodedBlock {
  runtime: Runtime;
  block: Block;
  events: EventRecord[];
  validators: AccountId[];
  node: NodeClient;
}

export async function decodeRecorded(recording: Recording, number: number): Promise<DecodedBlock> {
  const recorded = recording.blocks.find((b) => b.number === number);
  if (!recorded) throw new Error(`block ${number} is not recorded`);
  const node = recordedNodeClient(recording, recorded);
  const version = recording.runtimes[recorded.runtime].version as unknown as RpcRuntimeVersion;
  const runtime = await new RuntimeRegistry(node).get(version, recorded.header.parentHash);
  const { registry } = runtime;
  const block = registry.createType('Block', { header: recorded.header, extrinsics: recorded.extrinsics }) as Block;
  const events = registry.createType('Vec<EventRecord>', hexToU8a(recorded.events ?? '0x00')) as unknown as EventRecord[];
  const validators = registry.createType('Vec<AccountId>', hexToU8a(recorded.validators ?? '0x00')) as unknown as AccountId[];
  return { runtime, block, events, validators, node };
}
