// A runtime upgrade on the devnet: the head block (210) enacts it (its own state
// reports the new runtime, as chopsticks' wasm override puts it there), the block
// after it is the first one the new runtime executes. Each block must be decoded
// with the runtime of its parent, as sidecar does: the upgrade block's events were
// encoded by the old runtime. The new runtime differs in its spec version and in
// one event's docs, which `eventDocs` shows.
import type { SeedManifest } from '../devnet/seed';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Devnet } from '../devnet/chain';
import type { Fastcar } from '../src/server';
import { getJson, getReferenceJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import { startFastcarOn } from '../harness/fastcar';
import { serveStoredChain } from '../devnet/cli';
import { upgradedDevnetRuntime } from './support/runtimeUpgrade';

const OLD_DOC = 'An extrinsic completed successfully.';
const NEW_DOC = 'An extrinsic completed successfullY.';

let scratch: string;
let devnet: Devnet;
let upgradeAt: number;
let newSpecVersion: number;
let fastcar: Fastcar;
let sidecar: Peer;

beforeAll(async () => {
  const upgraded = upgradedDevnetRuntime(OLD_DOC, NEW_DOC);
  newSpecVersion = upgraded.specVersion;
  scratch = mkdtempSync(join(tmpdir(), 'fastcar-upgrade-'));
  const wasmPath = join(scratch, 'upgraded.wasm');
  writeFileSync(wasmPath, upgraded.code);
  let manifest: SeedManifest;
  ({ devnet, manifest } = await serveStoredChain(0, { wasmOverride: wasmPath }));
  upgradeAt = manifest.head.number;
  // The first block of the new runtime, built while fastcar and sidecar start (they are asked about it only once it is in).
  [, fastcar, sidecar] = await Promise.all([
    devnet.chain.newBlock(),
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' }),
    startSidecar(devnet.wsUrl),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([fastcar?.close(), sidecar?.stop()]);
  await devnet?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function specVersionAt(number: number): Promise<number> {
  const call = (method: string, params: unknown[]) =>
    fetch(devnet.httpUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
      .then((r) => r.json() as Promise<{ result: unknown }>)
      .then((r) => r.result);
  const hash = await call('chain_getBlockHash', [number]);
  return ((await call('state_getRuntimeVersion', [hash])) as { specVersion: number }).specVersion;
}

it('is a real upgrade: the enacting block reports the new runtime, its parent the old', async () => {
  expect(await specVersionAt(upgradeAt)).toBe(newSpecVersion);
  expect(await specVersionAt(upgradeAt + 1)).toBe(newSpecVersion);
  expect(await specVersionAt(upgradeAt - 1)).toBe(newSpecVersion - 1);
});

it('decodes the enacting block with the old runtime and the next one with the new', async () => {
  const docsOf = async (id: number | string) => {
    const { status, text } = await getJson(`${fastcar.url}/blocks/${id}?eventDocs=true`);
    expect(status).toBe(200);
    return { old: text.includes(OLD_DOC), new: text.includes(NEW_DOC) };
  };
  expect(await docsOf(upgradeAt - 1)).toEqual({ old: true, new: false });
  expect(await docsOf(upgradeAt)).toEqual({ old: true, new: false });
  expect(await docsOf(upgradeAt + 1)).toEqual({ old: false, new: true });
  const hash = ((await getJson(`${fastcar.url}/blocks/${upgradeAt}/header`)).body as { hash?: string; parentHash: string }).parentHash;
  expect(hash).toMatch(/^0x/);
});

it('answers both blocks as sidecar does, by number and by hash', async () => {
  for (const number of [upgradeAt, upgradeAt + 1]) {
    for (const query of ['?eventDocs=true&extrinsicDocs=true', '']) {
      const [ours, theirs] = await Promise.all([
        getJson(`${fastcar.url}/blocks/${number}${query}`),
        getReferenceJson(`${sidecar.url}/blocks/${number}${query}`),
      ]);
      expect([number, query, ours.status]).toEqual([number, query, theirs.status]);
      expect(ours.body).toEqual(theirs.body);
      const hash = (ours.body as { hash: string }).hash;
      const byHash = await getJson(`${fastcar.url}/blocks/${hash}${query}`);
      expect(byHash.body).toEqual(theirs.body);
    }
  }
}, 120_000);

it("answers a pallet's items at each block by that block's runtime, and a storage read guessed at the newest runtime again at the right one", async () => {
  const docsAt = async (at: number) => {
    const answer = await getJson(`${fastcar.url}/pallets/system/events/ExtrinsicSuccess?metadata=true&at=${at}`);
    return (answer.body as { metadata: { docs: string[] } }).metadata.docs.join(' ');
  };
  expect(await docsAt(upgradeAt + 1)).toContain(NEW_DOC);
  expect(await docsAt(upgradeAt - 1)).toContain(OLD_DOC);
  // A block of the old runtime whose version nothing has read yet: the key is built at the newest runtime loaded, then,
  // the block's version naming the old one, built and read again there (one wave more).
  const cost = (answer: { headers: Headers }) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];
  const first = await getJson(`${fastcar.url}/pallets/system/storage/number?at=100`);
  expect([first.status, (first.body as { value: string }).value, cost(first)]).toEqual([200, '100', [4, 3]]);
  const again = await getJson(`${fastcar.url}/pallets/system/storage/number?at=100`);
  expect([(again.body as { value: string }).value, cost(again)]).toEqual(['100', [1, 1]]);
});

it('dry-runs at a new finalized head with the newest runtime beside its version (one wave), and a block `at` names with its own runtime only (where sidecar fails)', async () => {
  const post = (base: string, at?: number) =>
    fetch(`${base}/transaction/dry-run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      // system.remark(0x1234) from Alice.
      body: JSON.stringify({
        tx: '0x0000081234',
        senderAddress: '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY',
        ...(at === undefined ? {} : { at: String(at) }),
      }),
    });
  const cost = (answer: Response) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];
  // The chain's safe XCM version is read once first (later runs send the last one read and check it beside the run).
  expect((await post(fastcar.url)).status).toBe(200);
  // A new head, once fastcar follows it (its header alone is read: no runtime version).
  await devnet.chain.newBlock();
  const head = upgradeAt + 2;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && ((await getJson(`${fastcar.url}/blocks/head/header`)).body as { number: string }).number !== String(head)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // One wave: its version, the run and the safe XCM version (was two: the version, then the run).
  const fresh = await post(fastcar.url);
  const freshBody = (await fresh.json()) as { at: { height: string } };
  expect([fresh.status, freshBody.at.height, cost(fresh)]).toEqual([200, String(head), [3, 1]]);
  // Blocks of the old runtime named by `at`: run with their own runtime only, never first with the newest (a client going
  // through history would pay two runs a block): the version, then the run [3 calls, 2 waves], after the block's hash
  // unless a read near it gave it already [4, 3]. Sidecar runs every dry run at its best block, and at these it fails
  // reading the call (docs/differences.md).
  for (const at of [99, 150]) {
    const [ours, theirs] = await Promise.all([post(fastcar.url, at), post(sidecar.url, at)]);
    const body = (await ours.json()) as { at: { height: string }; result: { resultType: string } };
    expect({ at, status: ours.status, height: body.at.height, resultType: body.result.resultType }).toEqual({
      at,
      status: 200,
      height: String(at),
      resultType: 'DispatchOutcome',
    });
    expect([
      [4, 3],
      [3, 2],
    ]).toContainEqual(cost(ours));
    expect([theirs.status, ((await theirs.json()) as { cause: string }).cause]).toEqual([
      400,
      expect.stringContaining('Unsupported unsigned extrinsic version 0'),
    ]);
    expect(await specVersionAt(at)).not.toBe(newSpecVersion);
  }
});
