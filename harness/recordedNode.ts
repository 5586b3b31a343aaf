// A JSON-RPC node over WebSocket that serves recorded chain data (see
// test/fixtures/mainnet/README.md): blocks, events, validators, runtime versions,
// metadata and fee queries, and, where a recording adds them, blocks known only by
// height, hash and runtime, with storage entries at them (recordedAccounts.ts). It
// answers only what was recorded; every other call gets a JSON-RPC error and is
// listed in `gaps`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { compactToU8a, hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import { WebSocketServer } from 'ws';

type Hex = `0x${string}`;

export interface RecordedHeader {
  parentHash: Hex;
  number: Hex;
  stateRoot: Hex;
  extrinsicsRoot: Hex;
  digest: { logs: Hex[] };
}

export interface RecordedBlock {
  number: number;
  hash: Hex;
  header: RecordedHeader;
  extrinsics: Hex[];
  events?: Hex;
  validators?: Hex;
  runtime: number;
}

export interface Recording {
  chain: string;
  name: string;
  nodeVersion: string;
  properties: Record<string, unknown>;
  genesisHash: Hex;
  metadata: Record<string, Hex>;
  runtimes: {
    metadataFrom: string;
    metadataVersion: number;
    borrowed?: boolean;
    version: { specVersion: number; apis: [Hex, number][] } & Record<string, unknown>;
  }[];
  blocks: RecordedBlock[];
  /** Block number -> sidecar's answer for /blocks/{number}, recorded from a live node. */
  recorded: Record<string, Record<string, unknown>>;
  stateCalls: Record<string, Record<Hex, Hex>>;
  rpc: Record<string, Record<Hex, unknown>>;
  /** What system_chainType answers. */
  chainType?: unknown;
  /** Blocks whose header and body were not recorded: only their height, hash and runtime (index into `runtimes`). */
  stateBlocks?: { number: number; hash: Hex; runtime: number }[];
  /** Block hash -> storage key -> value (null: recorded as holding nothing). */
  storage?: Record<Hex, Record<Hex, Hex | null>>;
}

export function loadPolkadotRecording(): Recording {
  const file = join(__dirname, '..', 'test', 'fixtures', 'mainnet', 'polkadot.json.gz');
  return JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as Recording;
}

const SYSTEM_EVENTS = '0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7';
const SESSION_VALIDATORS = '0xcec5070d609dd3497f72bde07fc96ba088dcde934c658227ee1dfafcd6e16903';
const METADATA_API = '0x37e397fc7c91f5e4';

class Unrecorded extends Error {}

/** What a node answers: an error that is the chain's truth, not a gap in the recording. */
class NodeRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface RecordedNode {
  url: string;
  /** Calls the recording had no answer for, as `method(params)`. */
  gaps: string[];
  close(): Promise<void>;
}

export async function startRecordedNode(recording: Recording, port = 0): Promise<RecordedNode> {
  const byHash = new Map(recording.blocks.map((block) => [block.hash, block]));
  // A block's parent is known only by its hash: runtime questions at the parent are answered with the block's runtime.
  const byParent = new Map(recording.blocks.map((block) => [block.header.parentHash, block]));
  const head = recording.blocks.reduce((a, b) => (b.number > a.number ? b : a));
  const stateBlocks = recording.stateBlocks ?? [];
  const stateByHash = new Map(stateBlocks.map((block) => [block.hash, block]));
  const gaps: string[] = [];

  const blockAt = (hash: unknown): RecordedBlock => {
    const block = byHash.get(hash as Hex);
    if (!block) throw new Unrecorded();
    return block;
  };
  const oldest = recording.blocks.reduce((a, b) => (b.number < a.number ? b : a));
  const runtimeAt = (hash: unknown) => {
    // Genesis is answered with the oldest recorded block's runtime: what sidecar asks at start, nothing decodes with it.
    const block = hash === recording.genesisHash ? oldest : (byHash.get(hash as Hex) ?? byParent.get(hash as Hex) ?? stateByHash.get(hash as Hex));
    if (!block) throw new Unrecorded();
    return recording.runtimes[block.runtime];
  };
  const recorded = <T>(table: Record<string, T> | undefined, key: string): T => {
    if (!table || !(key in table)) throw new Unrecorded();
    return table[key];
  };

  /** A height's hash: a recorded block's, or its parent's (named by the block after it). */
  const hashAt = (n: number): Hex | undefined => {
    if (n === 0) return recording.genesisHash;
    const known = stateBlocks.find((b) => b.number === n);
    if (known) return known.hash;
    const block = recording.blocks.find((b) => b.number === n) ?? recording.blocks.find((b) => b.number === n + 1);
    if (!block) return undefined;
    return block.number === n ? block.hash : block.header.parentHash;
  };

  /** A recorded storage entry at a block; an unrecorded one is a gap. */
  const storedAt = (hash: Hex, key: Hex): Hex | null => {
    const stored = recording.storage?.[hash];
    if (!stored || !(key in stored)) throw new Unrecorded();
    return stored[key];
  };

  const answer = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case 'system_chain':
        return recording.chain;
      case 'system_name':
        return recording.name;
      case 'system_version':
        return recording.nodeVersion;
      case 'system_properties':
        return recording.properties;
      case 'system_chainType':
        if (recording.chainType === undefined) throw new Unrecorded();
        return recording.chainType;
      case 'system_health':
        return { peers: 1, isSyncing: false, shouldHavePeers: true };
      case 'rpc_methods':
        return { version: 1, methods: [...METHODS] };
      case 'chain_getBlockHash': {
        if (params[0] === undefined || params[0] === null) return head.hash;
        // A list of heights (a window of hashes): the recorded ones, null for the heights the recording skips.
        if (Array.isArray(params[0])) return params[0].map((n) => hashAt(Number(n)) ?? null);
        const hash = hashAt(Number(params[0]));
        if (!hash) throw new Unrecorded();
        return hash;
      }
      case 'chain_getFinalizedHead':
        return head.hash;
      case 'chain_getHeader':
        return params[0] === undefined ? head.header : blockAt(params[0]).header;
      case 'chain_getBlock': {
        const block = blockAt(params[0]);
        return { block: { header: block.header, extrinsics: block.extrinsics }, justifications: null };
      }
      case 'state_getRuntimeVersion':
      case 'chain_getRuntimeVersion':
        return runtimeAt(params[0] ?? head.hash).version;
      case 'state_getMetadata':
        return recording.metadata[runtimeAt(params[0] ?? head.hash).metadataFrom];
      case 'state_queryStorageAt': {
        const [keys, at] = params as [Hex[], Hex];
        return [{ block: at, changes: keys.map((key) => [key, storedAt(at, key)]) }];
      }
      case 'state_getStorage': {
        const stored = recording.storage?.[params[1] as Hex];
        if (stored && (params[0] as Hex) in stored) return stored[params[0] as Hex];
        const block = blockAt(params[1]);
        if (params[0] === SYSTEM_EVENTS) {
          // Not recorded: the state is gone, as on a pruned node.
          if (block.events === undefined || block.events === null) throw Object.assign(new Unrecorded(), { pruned: true });
          return block.events;
        }
        if (params[0] === SESSION_VALIDATORS) return block.validators ?? null;
        throw new Unrecorded();
      }
      case 'state_call': {
        const [call, data, at] = params as [string, Hex, Hex | undefined];
        const runtime = runtimeAt(at ?? head.hash);
        if (call.startsWith('Metadata_metadata_') && (runtime.version.apis.find(([id]) => id === METADATA_API)?.[1] ?? 0) < 2) {
          // A runtime whose Metadata API is older than version 2 has no such call: a node says so.
          throw new NodeRefusal(4003, `Client error: Execution failed: Other: Exported method ${call} is not found`);
        }
        // Only the metadata version the recording holds is offered.
        if (call === 'Metadata_metadata_versions') return u8aToHex(u8aConcat(compactToU8a(1), new Uint8Array([runtime.metadataVersion, 0, 0, 0])));
        if (call === 'Metadata_metadata_at_version') {
          // Any other version: None, as a runtime answers for a version it does not offer.
          if (data !== u8aToHex(new Uint8Array([runtime.metadataVersion, 0, 0, 0]))) return '0x00';
          const metadata = hexToU8a(recording.metadata[runtime.metadataFrom]);
          return u8aToHex(u8aConcat(new Uint8Array([1]), compactToU8a(metadata.length), metadata));
        }
        return recorded(recording.stateCalls[call], data); // keyed by the call's whole argument (extrinsic ++ its length)
      }
      case 'payment_queryInfo':
      case 'payment_queryFeeDetails':
        runtimeAt(params[1]);
        return recorded(recording.rpc[method], params[0] as string);
      default:
        throw new Unrecorded();
    }
  };

  const server = new WebSocketServer({ host: '127.0.0.1', port, maxPayload: 64 * 1024 * 1024 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  let nextSubscription = 1;
  server.on('connection', (socket) => {
    socket.on('error', () => socket.terminate());
    socket.on('message', (data) => {
      const { id, method, params = [] } = JSON.parse(data.toString()) as { id: number; method: string; params?: unknown[] };
      const reply = (body: object) => socket.send(JSON.stringify({ jsonrpc: '2.0', id, ...body }));
      if (/^chain_subscribe(Finalized|Finalised|New|All)Heads?$/.test(method)) {
        const subscription = `0x${(nextSubscription++).toString(16)}`;
        reply({ result: subscription });
        const notification = method.includes('Final') ? 'chain_finalizedHead' : method.includes('All') ? 'chain_allHead' : 'chain_newHead';
        socket.send(JSON.stringify({ jsonrpc: '2.0', method: notification, params: { subscription, result: head.header } }));
        return;
      }
      if (/^(chain|state)_subscribeRuntimeVersion$/.test(method)) {
        const subscription = `0x${(nextSubscription++).toString(16)}`;
        reply({ result: subscription });
        socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'state_runtimeVersion', params: { subscription, result: runtimeAt(head.hash).version } }));
        return;
      }
      if (/unsubscribe/i.test(method)) return reply({ result: true });
      try {
        reply({ result: answer(method, params) });
      } catch (error) {
        if (error instanceof NodeRefusal) return reply({ error: { code: error.code, message: error.message } });
        if (!(error instanceof Unrecorded)) throw error;
        if ((error as { pruned?: boolean }).pruned) return reply({ error: { code: 4003, message: 'Client error: State already discarded' } });
        gaps.push(`${method}(${JSON.stringify(params).slice(0, 120)})`);
        reply({ error: { code: -32601, message: `not recorded: ${method}` } });
      }
    });
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${boundPort}`,
    gaps,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

const METHODS = [
  'system_chain',
  'system_name',
  'system_version',
  'system_properties',
  'system_chainType',
  'system_health',
  'rpc_methods',
  'chain_getBlockHash',
  'chain_getFinalizedHead',
  'chain_getHeader',
  'chain_getBlock',
  'state_getRuntimeVersion',
  'chain_getRuntimeVersion',
  'state_getMetadata',
  'state_getStorage',
  'state_queryStorageAt',
  'state_call',
  'payment_queryInfo',
  'payment_queryFeeDetails',
  'chain_subscribeFinalizedHeads',
  'chain_subscribeNewHeads',
  'state_subscribeRuntimeVersion',
];
