// Reads of "latest" state answered at the tip the proxy follows: the proxy in
// front of the devnet, the node's calls counted as the proxy sends them, blocks
// made on the devnet itself.
import type { Devnet } from '../devnet/chain';
import { connectRpc, type RpcClient } from '../harness/rpcClient';
import { createLogger } from '../src/logger';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import type { RpcProxy } from '../src/proxy/proxyServer';
import { startProxy } from '../src/proxy/startProxy';
import type { UpstreamPool } from '../src/proxy/upstreamPool';
import { startDevnet } from './support/devnet';

/** System::Number: the block's own height, so each block answers it differently. */
const BLOCK_NUMBER_KEY = '0x26aa394eea5630e07c48ae0c9558cef702a5c1b19ab7a04f536c519aca4983ac';
const ALICE = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';

let devnet: Devnet;
let node: RpcClient;
let proxy: RpcProxy;
let pool: UpstreamPool;
let httpUrl: string;

beforeAll(async () => {
  ({ devnet } = await startDevnet());
  node = await connectRpc(devnet.wsUrl);
  const started = await startProxy(proxyConfigFor([devnet.wsUrl], { port: 0, healthIntervalMs: 500, logLevel: 'silent' }), createLogger('silent'));
  ({ proxy, pool } = started);
  httpUrl = `http://${started.address}`;
}, 180_000);

afterAll(async () => {
  node?.close();
  await proxy?.close();
  await devnet?.close();
});

type Answer = { id: number; result?: unknown; error?: { code: number } };

async function rpc<T = Answer>(body: unknown): Promise<T> {
  const response = await fetch(httpUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.json()) as T;
}

const upstreamCalls = () => pool.upstreams.reduce((sum, upstream) => sum + upstream.calls, 0);

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${httpUrl}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}

async function nodeHead(): Promise<{ number: number; hash: string }> {
  const hash = await node.call<string>('chain_getBlockHash', []);
  const header = await node.call<{ number: string }>('chain_getHeader', [hash]);
  return { number: parseInt(header.number, 16), hash };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** System::Number's SCALE value (a little-endian u32) as a height. */
const heightOf = (value: unknown) => Buffer.from(String(value).slice(2), 'hex').readUInt32LE(0);

/**
 * A thousand reads of the block height, in four batches sent together, in three
 * spellings a node reads alike (key only, an explicit null block, upper-case hex).
 */
async function thousandReads(): Promise<number[]> {
  const spellings = [[BLOCK_NUMBER_KEY], [BLOCK_NUMBER_KEY, null], [BLOCK_NUMBER_KEY.toUpperCase().replace('0X', '0x')]];
  const batches = Array.from({ length: 4 }, (_, b) =>
    Array.from({ length: 250 }, (_, i) => ({ jsonrpc: '2.0', id: b * 250 + i, method: 'state_getStorage', params: spellings[i % 3] })),
  );
  const answers = (await Promise.all(batches.map((batch) => rpc<Answer[]>(batch)))).flat();
  expect(answers.filter((answer) => answer.error)).toEqual([]);
  return answers.map((answer) => heightOf(answer.result));
}

it('answers a thousand identical reads of "latest" state in one block with one node call', async () => {
  const head = await nodeHead();
  await until(async () => (await metric('proxy_tip_height')) === head.number, 'the proxy to follow the head');
  const before = upstreamCalls();
  const heights = await thousandReads();
  expect(new Set(heights)).toEqual(new Set([head.number]));
  expect(upstreamCalls() - before).toBe(1);
  // Kept for the tip: asked again, the node is not asked.
  expect(heightOf((await rpc({ jsonrpc: '2.0', id: 1, method: 'state_getStorage', params: [BLOCK_NUMBER_KEY] })).result)).toBe(head.number);
  expect(upstreamCalls() - before).toBe(1);
  expect(await metric('proxy_tip_cache_entries')).toBe(1);
}, 60_000);

it('answers at the new block once the devnet makes one, and lets go of what it kept for the old one', async () => {
  const old = await nodeHead();
  await until(async () => (await metric('proxy_tip_height')) === old.number, 'the proxy to follow the head');
  // Something kept for this tip beside the height: a runtime call.
  await rpc({ jsonrpc: '2.0', id: 1, method: 'state_call', params: ['Core_version', '0x'] });
  expect(await metric('proxy_tip_cache_entries')).toBeGreaterThanOrEqual(1);
  await node.call('dev_newBlock', [{}]);
  const head = await nodeHead();
  expect(head.number).toBe(old.number + 1);
  await until(async () => (await metric('proxy_tip_height')) === head.number, 'the proxy to follow the new head');
  expect(await metric('proxy_tip_cache_entries')).toBe(0);
  const before = upstreamCalls();
  const heights = await thousandReads();
  expect(new Set(heights)).toEqual(new Set([head.number]));
  expect(upstreamCalls() - before).toBe(1);
  // The very answer the node gives at that block's hash.
  const atHash = await node.call<string>('state_getStorage', [BLOCK_NUMBER_KEY, head.hash]);
  expect(heightOf(atHash)).toBe(head.number);
  // A call that names a block is answered at that block, not at the tip.
  const named = await rpc({ jsonrpc: '2.0', id: 2, method: 'state_getStorage', params: [BLOCK_NUMBER_KEY, old.hash] });
  expect(heightOf(named.result)).toBe(old.number);
}, 60_000);

it('coalesces reads of the runtime version at the tip, and leaves out the nonce (it reads the pool)', async () => {
  const head = await nodeHead();
  await until(async () => (await metric('proxy_tip_height')) === head.number, 'the proxy to follow the head');
  const before = upstreamCalls();
  const calls = Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'state_getRuntimeVersion', params: [] }));
  const versions = await rpc<Answer[]>(calls);
  expect(new Set(versions.map((answer) => JSON.stringify(answer.result))).size).toBe(1);
  expect(versions[0].result).toMatchObject({ specName: expect.any(String) });
  expect(upstreamCalls() - before).toBe(1);
  const nonceCalls = upstreamCalls();
  for (let i = 0; i < 3; i++) await rpc({ jsonrpc: '2.0', id: i, method: 'system_accountNextIndex', params: [ALICE] });
  expect(upstreamCalls() - nonceCalls).toBe(3);
}, 60_000);
