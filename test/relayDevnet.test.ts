// The devnet's relay chain (Westend, run by chopsticks from genesis: devnet/relayChain.ts)
// served by fastcar under /rc beside the Asset Hub devnet, against the real sidecar 18
// pointed at the same relay chain: every block, with and without fees, headers and raw
// blocks. chopsticks' relay blocks include no parachain candidates, so there
// para-inclusions and useRcBlock have nothing to find (test/relay.test.ts covers them
// on recorded Polkadot history).
import type { Devnet } from '../devnet/chain';
import { startRelayDevnet, type RelayDevnet } from '../devnet/relayChain';
import { getJson, getReferenceJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';
import { freePort, startMainProcess, startSidecar, type Peer } from '../harness/processes';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';

let devnet: Devnet;
let relay: RelayDevnet;
let sidecar: Peer;
let fastcar: Fastcar;

beforeAll(async () => {
  [{ devnet }, relay] = await Promise.all([startDevnet(), startRelayDevnet({ port: 0 })]);
  [sidecar, fastcar] = await Promise.all([startSidecar(relay.wsUrl), startFastcarOn(devnet.wsUrl, { FASTCAR_RELAY_URL: relay.wsUrl })]);
}, 180_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close()]);
  await Promise.all([relay?.close(), devnet?.close()]);
});

/** fastcar's `/rc{path}` against sidecar's `{path}` on the relay chain. */
async function compare(path: string): Promise<unknown> {
  const [theirs, ours] = await Promise.all([getReferenceJson(sidecar.url + path), getJson(`${fastcar.url}/rc${path}`)]);
  expect({ path, status: ours.status }).toEqual({ path, status: theirs.status });
  expect(ours.body).toEqual(theirs.body);
  return ours.body;
}

it('serves every relay block as sidecar does, with and without fees, and its header and raw form', async () => {
  for (let n = 0; n <= relay.head; n++) {
    for (const suffix of ['', '?noFees=true', '/header', '/extrinsics-raw']) await compare(`/blocks/${n}${suffix}`);
  }
  const transfer = (await compare(`/blocks/${relay.transferBlock}`)) as { extrinsics: { method: { pallet: string }; info: { partialFee?: string } }[] };
  const signed = transfer.extrinsics.find((extrinsic) => extrinsic.method.pallet === 'balances');
  expect(signed?.info.partialFee).toMatch(/^\d+$/);
  await compare(`/blocks/${relay.transferBlock}/extrinsics/${transfer.extrinsics.indexOf(signed!)}`);
}, 300_000);

it('finds no parachain blocks in relay blocks that included none', async () => {
  const inclusions = await getJson(`${fastcar.url}/rc/blocks/${relay.transferBlock}/para-inclusions`);
  expect(inclusions.status).toBe(400);
  expect((inclusions.body as { message: string }).message).toBe(`Block ${relay.transferBlock} on chain westend doesn't have the paraInclusion event`);
  expect((await getJson(`${fastcar.url}/blocks/${relay.transferBlock}?useRcBlock=true`)).body).toEqual([]);
});

it('npm start with no node named serves the devnet and its relay chain, /rc included', async () => {
  const port = await freePort();
  const main = await startMainProcess({ DEVNET_PORT: '0', FASTCAR_PORT: String(port), FASTCAR_LOG_LEVEL: 'warn' }, 'fastcar ready');
  try {
    const base = `http://127.0.0.1:${port}`;
    expect((await getJson(`${base}/blocks/3/header`)).status).toBe(200);
    const relayHeader = await getJson(`${base}/rc/blocks/2/header`);
    expect([relayHeader.status, (relayHeader.body as { number: string }).number]).toEqual([200, '2']);
    expect((await getJson(`${base}/blocks/2?useRcBlock=true`)).body).toEqual([]);
  } finally {
    await main.stop();
  }
}, 180_000);
