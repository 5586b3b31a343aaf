// The relay chain's /paras routes against sidecar's final line, 20.14.1, on the relay
// devnet (Westend from genesis) given parachain state by real extrinsics
// (test/support/parasState.ts): two paras, leases, an auction with a bid, a crowdloan.
// Every route and variant, by height and by hash, at the heights before and after each
// step; under /rc through fastcar on the Asset Hub devnet with FASTCAR_RELAY_URL; and
// the head candidates, which chopsticks' relay blocks never carry, on recorded Polkadot
// history. Where sidecar 20 answers 500 (an onboarding para's lease info, a para id too
// big for a u32) fastcar answers what is right, as docs/differences.md says.
import type { EventRecord, Header } from '@polkadot/types/interfaces';
import Ajv2020 from 'ajv/dist/2020';

import type { Devnet } from '../devnet/chain';
import { startRelayDevnet, type RelayDevnet } from '../devnet/relayChain';
import { startFastcarOn } from '../harness/fastcar';
import { getJson, getReferenceJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import { openApiDocument } from '../src/controllers/families';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { devnetSigner } from './support/signer';
import { seedParas, type ParasState } from './support/parasState';
import { decodeRecorded } from '../harness/recordedBlocks';
import { loadPolkadotRecording, startRecordedNode, type RecordedNode } from '../harness/recordedNode';
import { sidecarComparison } from './support/sidecarCompare';

let devnet: Devnet;
let relay: RelayDevnet;
let state: ParasState;
let sidecar: Peer;
let fastcar: Fastcar;
let hub: Fastcar;
const { compare, both, compareError } = sidecarComparison(() => ({ sidecar: sidecar.url, fastcar: fastcar.url }));

beforeAll(async () => {
  [{ devnet }, relay] = await Promise.all([startDevnet(), startRelayDevnet({ port: 0 })]);
  state = await seedParas(relay.wsUrl);
  [sidecar, fastcar, hub] = await Promise.all([
    startSidecar(relay.wsUrl, '/runtime/spec', {}, 20),
    startFastcarOn(relay.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' }),
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0', FASTCAR_RELAY_URL: relay.wsUrl }),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close(), hub?.close()]);
  await Promise.all([relay?.close(), devnet?.close()]);
});

const hashOf = async (height: number) => ((await getJson(`${fastcar.url}/blocks/${height}/header`)).body as { parentHash: string; hash?: string }).parentHash;
const rpcCost = (answer: { headers: Headers }) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];

/** Every height a step of the seeding left, as `?at=` by height and by hash, and the finalized head (no `at`). */
async function everyAt(): Promise<string[]> {
  const heights = [state.before, state.registered, state.leased, state.opened, state.auction, state.crowdloan, state.ending, state.head];
  const hashes = await Promise.all(heights.map(async (height) => (await getJson(`${fastcar.url}/blocks/${height}/header`)).body as { number: string }));
  expect(hashes.map((header) => header.number)).toEqual(heights.map(String));
  const byHash = await Promise.all(heights.map((height) => hashOf(height + 1)));
  return ['', ...heights.map((height) => `?at=${height}`), ...byHash.slice(0, -1).map((hash) => `?at=${hash}`)];
}

/** The documented schema `name` (openapi.json), compiled. */
function schemaCheck(name: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'fastcar', components: (openApiDocument('test') as { components: unknown }).components });
  return ajv.compile({ $ref: `fastcar#/components/schemas/${name}` });
}

const withQuery = (path: string, at: string) => (at ? `${path}${path.includes('?') ? '&' : '?'}${at.slice(1)}` : path);

describe('/paras on the relay devnet, against sidecar 20', () => {
  it('answers every route as sidecar does at every step, by height and by hash', async () => {
    const { parathread, onboarding } = state;
    const routes = [
      '/paras/leases/current',
      '/paras/leases/current?currentLeaseHolders=false',
      '/paras/leases/current?currentLeaseHolders=true',
      '/paras/auctions/current',
      '/paras/crowdloans',
      `/paras/${parathread}/lease-info`,
      `/paras/${parathread}/crowdloan-info`,
      `/paras/${onboarding}/crowdloan-info`,
      '/paras/7/lease-info',
      '/paras/7/crowdloan-info',
      '/paras/head/included-candidates',
      '/paras/head/backed-candidates',
    ];
    for (const at of await everyAt()) {
      for (const route of routes) await compare(withQuery(route, at));
    }
    // The seeded state is there to be compared.
    const auction = (await compare(`/paras/auctions/current?at=${state.ending}`)) as { phase: string; winning: { bid: unknown }[] };
    expect(auction.phase).toBe('endPeriod');
    expect(auction.winning.filter(({ bid }) => bid !== null)).toHaveLength(1);
    expect(await compare(`/paras/leases/current?at=${state.head}`)).toMatchObject({ currentLeaseHolders: [String(onboarding)] });
    const leases = (await compare(`/paras/${parathread}/lease-info`)) as { leases: { leasePeriodIndex: string }[] };
    expect(leases.leases.map(({ leasePeriodIndex }) => leasePeriodIndex)).toEqual(['1', '2']);
    expect(await compare('/paras/crowdloans')).toMatchObject({ funds: [{ paraId: String(parathread) }] });
  });

  it("lists the paras as sidecar does, and says what an onboarding para onboards as (sidecar's list never does)", async () => {
    expect(await compare(`/paras?at=${state.before}`)).toMatchObject({ paras: [] });
    for (const at of (await everyAt()).filter((query) => query !== `?at=${state.before}`)) {
      const { theirs, ours } = await both(withQuery('/paras', at));
      expect([theirs.status, ours.status]).toEqual([200, 200]);
      const expected = theirs.body as { paras: { paraId: string; paraLifecycle: string; onboardingAs?: string }[] };
      for (const para of expected.paras) if (para.paraLifecycle === 'Onboarding') para.onboardingAs = 'parathread';
      expect(ours.body).toEqual(expected);
    }
  });

  it("answers an onboarding para's lease info, where sidecar 20 answers 500", async () => {
    const path = `/paras/${state.onboarding}/lease-info`;
    await compare(`${path}?at=${state.before}`);
    const { theirs, ours } = await both(path);
    expect([theirs.status, ours.status]).toEqual([500, 200]);
    expect(ours.body).toMatchObject({
      paraLifecycle: 'Onboarding',
      onboardingAs: 'parathread',
      leases: [{ leasePeriodIndex: '0', account: '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY', deposit: '1000000000000' }],
    });
  });

  it('refuses bad para ids and flags with 400s (sidecar: 500 for an id beyond a u32)', async () => {
    await compareError('/paras/x/lease-info', 400);
    await compareError('/paras/-1/crowdloan-info', 400);
    await compareError('/paras/1.5/crowdloan-info', 400);
    await compareError('/paras/leases/current?currentLeaseHolders=yes', 400);
    const big = await both('/paras/99999999999/lease-info');
    expect([big.theirs.status, big.ours.status]).toEqual([500, 400]);
    expect((big.ours.body as { message: string }).message).toBe('paraId must be at most 4294967295');
    const far = await both('/paras?at=999999');
    expect([far.theirs.status, far.ours.status]).toEqual([500, 400]);
  });

  it('reads each route in few waves, and keeps answers at a hash for clients', async () => {
    const at = `?at=${state.head}`;
    // Once the block's hash and runtime version are known (the first request at a height asks them).
    const steady: [string, number[]][] = [
      // The para's entries (leases, lifecycle, upcoming genesis) in one call.
      [`/paras/${state.parathread}/lease-info`, [1, 1]],
      [`/paras/${state.parathread}/crowdloan-info`, [1, 1]],
      // A map's keys listed, then their values.
      ['/paras/crowdloans', [2, 2]],
      ['/paras/leases/current', [2, 2]],
      // Then an onboarding para's genesis arguments.
      ['/paras', [3, 3]],
      // Constants only.
      ['/paras/leases/current?currentLeaseHolders=false', [0, 0]],
      // The auction's values, then the winning bids of the sample they name.
      ['/paras/auctions/current', [2, 2]],
      ['/paras/head/included-candidates', [1, 1]],
    ];
    for (const [path] of steady) await getJson(`${fastcar.url}${withQuery(path, at)}`);
    for (const [path, cost] of steady) expect({ path, cost: rpcCost(await getJson(`${fastcar.url}${withQuery(path, at)}`)) }).toEqual({ path, cost });
    const hash = await hashOf(state.head);
    const first = await getJson(`${fastcar.url}/paras/auctions/current?at=${hash}`);
    expect(first.headers.get('etag')).toBeTruthy();
    const again = await fetch(`${fastcar.url}/paras/auctions/current?at=${hash}`, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
  });
});

describe('the documented answers', () => {
  it('every answer matches its schema in openapi.json', async () => {
    const routes: [string, string][] = [
      ['/paras', 'Paras'],
      ['/paras/leases/current', 'LeasesCurrent'],
      ['/paras/leases/current?currentLeaseHolders=false', 'LeasesCurrent'],
      ['/paras/auctions/current', 'AuctionsCurrent'],
      ['/paras/crowdloans', 'Crowdloans'],
      [`/paras/${state.parathread}/lease-info`, 'LeaseInfo'],
      [`/paras/${state.onboarding}/lease-info`, 'LeaseInfo'],
      ['/paras/7/lease-info', 'LeaseInfo'],
      [`/paras/${state.parathread}/crowdloan-info`, 'CrowdloanInfo'],
      ['/paras/7/crowdloan-info', 'CrowdloanInfo'],
      ['/paras/head/included-candidates', 'ParasHeads'],
    ];
    for (const at of ['', `?at=${state.before}`, `?at=${state.auction}`]) {
      for (const [path, schema] of routes) {
        const check = schemaCheck(schema);
        const { status, body } = await getJson(fastcar.url + withQuery(path, at));
        expect(status).toBe(200);
        expect({ path, at, valid: check(body), errors: check.errors ?? null }).toEqual({ path, at, valid: true, errors: null });
      }
    }
  });
});

describe('/rc/paras through fastcar on the Asset Hub devnet', () => {
  it("answers the relay chain's routes as sidecar answers them on the relay chain, and under /v1", async () => {
    for (const path of ['/paras/auctions/current', '/paras/crowdloans', `/paras/${state.parathread}/lease-info`, `/paras/leases/current?at=${state.leased}`]) {
      const [theirs, ours, v1] = await Promise.all([getReferenceJson(sidecar.url + path), getJson(`${hub.url}/rc${path}`), getJson(`${hub.url}/v1/rc${path}`)]);
      expect({ path, status: ours.status, body: ours.body }).toEqual({ path, status: theirs.status, body: theirs.body });
      expect(v1.body).toEqual(ours.body);
    }
    expect((await getJson(`${fastcar.url}/v1/paras`)).body).toEqual((await getJson(`${fastcar.url}/paras`)).body);
  });

  it('answers 400 on the Asset Hub itself, which has no Paras pallet', async () => {
    for (const path of ['/paras', '/paras/crowdloans', '/paras/auctions/current', '/paras/1000/lease-info', '/paras/leases/current']) {
      const ours = await getJson(hub.url + path);
      expect({ path, status: ours.status }).toEqual({ path, status: 400 });
      expect((ours.body as { message: string }).message).toMatch(/^The runtime does not include the (paras|crowdloan|auctions|slots) module at this block$/);
    }
  });
});

describe('/coretime on the relay devnet (its assignments now in ParaScheduler)', () => {
  it('answers info and overview where sidecar 20 answers 500 (it looks for CoretimeAssignmentProvider), from the pallets the runtime has', async () => {
    const signer = await devnetSigner(relay.wsUrl);
    try {
      const { api, sender: alice } = signer;
      for (const route of ['info', 'overview']) {
        const { theirs, ours } = await both(`/coretime/${route}`);
        expect([theirs.status, ours.status]).toEqual([500, 200]);
        expect((theirs.body as { message: string }).message).toBe('The runtime does not include the coretimeAssignmentProvider module at this block');
      }
      const palletVersion = (await api.query.paraScheduler.palletVersion()).toString();
      const info = (await getJson(`${fastcar.url}/coretime/info`)).body as Record<string, unknown>;
      expect(info).toEqual({
        at: expect.anything(),
        brokerId: api.consts.coretime.brokerId.toString(),
        palletVersion,
        maxHistoricalRevenue: api.consts.onDemandAssignmentProvider.maxHistoricalRevenue.toString(),
      });
      expect((await getJson(`${fastcar.url}/coretime/overview`)).body).toMatchObject({ cores: [], coreSchedules: [] });
      // Root assigns core 0 to the parathread from the next block on (as the broker chain would by XCM).
      const head = (await api.rpc.chain.getHeader()).number.toNumber();
      const nonce = (await api.rpc.system.accountNextIndex(alice.address)).toNumber();
      const assign = api.tx.sudo.sudo(api.tx.coretime.assignCore(0, head + 2, [[{ Task: state.parathread }, 57600]], null));
      await api.rpc('dev_newBlock' as never, { transactions: [(await assign.signAsync(alice, { nonce, era: 0 })).toHex()] } as never);
      await api.rpc('dev_newBlock' as never, {} as never);
      await api.rpc('dev_newBlock' as never, {} as never);
      // The reference, laid out from polkadot.js's reading as sidecar lays out a core descriptor.
      type Work = { assignments: [{ task?: number; pool?: null }, { ratio: number; remaining: number }][]; endHint: number | null; pos: number; step: number };
      const descriptors = (await api.query.paraScheduler.coreDescriptors()).toJSON() as Record<
        string,
        { queue: { first: number; last: number } | null; currentWork: Work }
      >;
      const descriptor = descriptors['0'];
      expect(descriptor.currentWork.assignments).toHaveLength(1);
      const expected = {
        paraId: String(state.parathread),
        type: 'Parathread',
        info: {
          currentWork: {
            assignments: descriptor.currentWork.assignments.map(([assignment, share]) => ({
              isPool: assignment.pool !== undefined,
              isTask: assignment.task !== undefined,
              ratio: String(share.ratio),
              remaining: String(share.remaining),
              task: String(assignment.task),
            })),
            endHint: descriptor.currentWork.endHint === null ? null : String(descriptor.currentWork.endHint),
            pos: String(descriptor.currentWork.pos),
            step: String(descriptor.currentWork.step),
          },
          queue: { first: String(descriptor.queue?.first ?? 0), last: String(descriptor.queue?.last ?? 0) },
        },
      };
      const overview = await getJson(`${fastcar.url}/coretime/overview`);
      expect(overview.body).toMatchObject({ cores: [expected], coreSchedules: [] });
      const check = schemaCheck('CoretimeOverview');
      expect({ valid: check(overview.body), errors: check.errors ?? null }).toEqual({ valid: true, errors: null });
      const infoCheck = schemaCheck('CoretimeInfo');
      expect(infoCheck(info)).toBe(true);
      expect(rpcCost(await getJson(`${fastcar.url}/coretime/overview?at=${head + 3}`))[1]).toBeLessThanOrEqual(3);
      expect((await getJson(`${hub.url}/rc/coretime/overview`)).body).toEqual(overview.body);
    } finally {
      await signer.close();
    }
  });

  it("answers the Broker pallet's routes on a relay chain with a 400 in sidecar's words (sidecar does not mount them there)", async () => {
    for (const route of ['leases', 'regions', 'renewals', 'reservations']) {
      const { theirs, ours } = await both(`/coretime/${route}`);
      expect([route, theirs.status, ours.status]).toEqual([route, 404, 400]);
      expect((ours.body as { message: string }).message).toBe('This endpoint is only available on coretime chains.');
      const onHub = await getJson(`${hub.url}/coretime/${route}`);
      expect([onHub.status, (onHub.body as { message: string }).message]).toEqual([400, 'The runtime does not include the broker module at this block']);
    }
    const info = await getJson(`${hub.url}/coretime/info`);
    expect([info.status, (info.body as { message: string }).message]).toEqual([
      400,
      'The runtime does not include the onDemandAssignmentProvider module at this block',
    ]);
  });
});

describe('head candidates on recorded Polkadot history', () => {
  const RELAY_BLOCK = 19772575;
  let node: RecordedNode;
  let recorded: Fastcar;

  beforeAll(async () => {
    node = await startRecordedNode(loadPolkadotRecording());
    recorded = await startFastcarOn(node.url, { FASTCAR_PREBUILD_BLOCKS: '0' });
  }, 120_000);

  afterAll(async () => {
    await recorded?.close();
    await node?.close();
  });

  it('lists the headers the CandidateIncluded and CandidateBacked events carry, as sidecar reads them', async () => {
    const { events, runtime } = await decodeRecorded(loadPolkadotRecording(), RELAY_BLOCK);
    for (const [route, method] of [
      ['included-candidates', 'CandidateIncluded'],
      ['backed-candidates', 'CandidateBacked'],
    ]) {
      // The reference, read with polkadot.js the way sidecar reads it.
      const expected: Record<string, unknown> = {};
      for (const { event } of events as EventRecord[]) {
        if (event.section !== 'paraInclusion' || event.method !== method) continue;
        const { descriptor } = event.data[0].toJSON() as { descriptor: { paraId: number; paraHead: string } };
        const header = (runtime.registry.createType('Header', event.data[1]) as Header).toJSON() as Record<string, unknown>;
        expected[String(descriptor.paraId)] = { hash: descriptor.paraHead, ...header, number: String(header.number) };
      }
      expect(Object.keys(expected).length).toBeGreaterThan(5);
      const { status, body } = await getJson(`${recorded.url}/paras/head/${route}?at=${RELAY_BLOCK}`);
      expect(status).toBe(200);
      const { at, ...heads } = body as { at: { height: string } };
      expect(at.height).toBe(String(RELAY_BLOCK));
      expect(heads).toEqual(expected);
      const check = schemaCheck('ParasHeads');
      expect({ valid: check(body), errors: check.errors ?? null }).toEqual({ valid: true, errors: null });
    }
  });
});
