// /pallets/staking/progress and /validators against sidecar's final line, 20.14.1, on the
// devnet (Asset Hub Westend, whose staking moved there in 2025) with its relay chain
// beside it: on an Asset Hub the progress is worked out from the block's timestamp and
// the relay chain's session validators and skipped epochs, which both read at the relay's
// head. Every answer sidecar gives must be the same, field for field; where it answers
// 500 for what a client asked (a relay chain without staking, a block beyond the head),
// fastcar answers 400.
import type { Devnet } from '../devnet/chain';
import { startRelayDevnet, type RelayDevnet } from '../devnet/relayChain';
import type { SeedManifest } from '../devnet/seed';
import { startFastcarOn } from '../harness/fastcar';
import { getJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import type { Fastcar } from '../src/server';
import { sessionOfEpoch } from '../src/services/staking/stakingReads';
import { startDevnet } from './support/devnet';
import { devnetSigner } from './support/signer';
import { sidecarComparison } from './support/sidecarCompare';

let devnet: Devnet;
let relay: RelayDevnet;
let manifest: SeedManifest;
let sidecar: Peer;
let relaySidecar: Peer;
let fastcar: Fastcar;
let alone: Fastcar;
const { compare, both } = sidecarComparison(() => ({ sidecar: sidecar.url, fastcar: fastcar.url }));

beforeAll(async () => {
  [{ devnet, manifest }, relay] = await Promise.all([startDevnet(), startRelayDevnet({ port: 0 })]);
  const multiChain = JSON.stringify([{ url: relay.wsUrl, type: 'relay' }]);
  [sidecar, relaySidecar, fastcar, alone] = await Promise.all([
    startSidecar(devnet.wsUrl, '/runtime/spec', { SAS_SUBSTRATE_MULTI_CHAIN_URL: multiChain }, 20),
    startSidecar(relay.wsUrl, '/runtime/spec', {}, 20),
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0', FASTCAR_RELAY_URL: relay.wsUrl }),
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), relaySidecar?.stop(), fastcar?.close(), alone?.close()]);
  await Promise.all([devnet?.close(), relay?.close()]);
});

const hashOf = async (height: number) => ((await getJson(`${fastcar.url}/blocks/${height + 1}/header`)).body as { parentHash: string }).parentHash;
const rpcCost = (answer: { headers: Headers }) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];

describe('/pallets/staking on Asset Hub', () => {
  it('answers progress and validators as sidecar 20 at the head, by height and by hash', async () => {
    const hash = await hashOf(manifest.blocks.transfers);
    for (const query of ['', `?at=${manifest.blocks.transfers}`, `?at=${hash}`, `?at=${manifest.head.number - 1}`]) {
      const progress = (await compare(`/pallets/staking/progress${query}`)) as Record<string, unknown>;
      expect(Object.keys(progress)).toEqual([
        'at',
        'activeEra',
        'forceEra',
        'nextSessionEstimate',
        'unappliedSlashes',
        'validatorSet',
        'nextActiveEraEstimate',
        'electionStatus',
        'idealValidatorCount',
      ]);
      const validators = (await compare(`/pallets/staking/validators${query}`)) as { validators: { status: string }[] };
      expect(validators.validators.length).toBeGreaterThan(0);
    }
    expect((await getJson(`${fastcar.url}/v1/pallets/staking/progress`)).body).toEqual((await getJson(`${fastcar.url}/pallets/staking/progress`)).body);
  });

  it('reads the block in one wave once `at` is resolved, beside the relay chain and the slashes', async () => {
    const height = manifest.head.number - 2;
    await getJson(`${fastcar.url}/pallets/staking/progress?at=${height}`);
    // The values (one call), the slashes listed (one), the relay's values (one): one wave.
    expect(rpcCost(await getJson(`${fastcar.url}/pallets/staking/progress?at=${height}`))).toEqual([3, 1]);
    // The values and the validators listed, then their preferences and the era's exposures.
    expect(rpcCost(await getJson(`${fastcar.url}/pallets/staking/validators?at=${height}`))).toEqual([4, 2]);
  });

  it('says what is missing without a relay chain node, and refuses blocks beyond the head with a 400', async () => {
    const answer = await getJson(`${alone.url}/pallets/staking/progress`);
    expect(answer.status).toBe(400);
    expect((answer.body as { message: string }).message).toMatch(/FASTCAR_RELAY_URL/);
    // Validators need nothing of the relay chain.
    expect((await getJson(`${alone.url}/pallets/staking/validators`)).body).toEqual((await getJson(`${fastcar.url}/pallets/staking/validators`)).body);
    const far = await both('/pallets/staking/progress?at=999999');
    expect([far.theirs.status, far.ours.status]).toEqual([500, 400]);
  });

  it('on the relay chain, which has no staking now, a 400 with sidecar 20 its 500 words', async () => {
    for (const route of ['progress', 'validators']) {
      const theirs = await getJson(`${relaySidecar.url}/pallets/staking/${route}`);
      const ours = await getJson(`${fastcar.url}/rc/pallets/staking/${route}`);
      expect([theirs.status, ours.status]).toEqual([500, 400]);
      expect((ours.body as { message: string }).message).toBe((theirs.body as { message: string }).message);
    }
  });
});

describe('/pallets/nomination-pools', () => {
  it('answers as sidecar 20: the counters and bounds, a pool by id with and without its metadata', async () => {
    for (const query of ['', `?at=${manifest.blocks.transfers}`, `?at=${await hashOf(manifest.head.number - 1)}`]) {
      const info = (await compare(`/pallets/nomination-pools/info${query}`)) as Record<string, unknown>;
      expect(Object.keys(info)).toHaveLength(13);
      for (const path of ['/pallets/nomination-pools/1', '/pallets/nomination-pools/0?metadata=true', '/pallets/nomination-pools/7?metadata=false']) {
        await compare(path + (query ? `${path.includes('?') ? '&' : '?'}${query.slice(1)}` : ''));
      }
    }
    expect((await compare('/pallets/nomination-pools/1?metadata=true')) as Record<string, unknown>).toMatchObject({ bondedPool: null, metadata: '0x' });
  });

  it("refuses a bad pool id with sidecar's message, and answers 400 on a chain without pools where sidecar answers 500", async () => {
    const bad = await both('/pallets/nomination-pools/x');
    expect([bad.theirs.status, bad.ours.status]).toEqual([400, 400]);
    expect((bad.ours.body as { message: string }).message).toBe((bad.theirs.body as { message: string }).message);
    for (const route of ['info', '1']) {
      const theirs = await getJson(`${relaySidecar.url}/pallets/nomination-pools/${route}`);
      const ours = await getJson(`${fastcar.url}/rc/pallets/nomination-pools/${route}`);
      expect([theirs.status, ours.status]).toEqual([500, 400]);
    }
  });
});

describe('/ahm-info', () => {
  it('answers as sidecar 20 on the Asset Hub and on its relay chain, from the table of known migrations', async () => {
    const ours = (await compare('/ahm-info')) as { relay: { startBlock: string }; assetHub: { endBlock: string } };
    expect(ours).toEqual({ relay: { startBlock: '26041702', endBlock: '26071771' }, assetHub: { startBlock: '11716733', endBlock: '11736597' } });
    expect((await getJson(`${fastcar.url}/rc/ahm-info`)).body).toEqual((await getJson(`${relaySidecar.url}/ahm-info`)).body);
    expect((await getJson(`${alone.url}/ahm-info`)).body).toEqual(ours);
  });
});

describe('/pallets/on-going-referenda', () => {
  it('answers as sidecar 20 (the devnet has no referendum), and a 400 on a chain without referenda', async () => {
    for (const query of ['', `?at=${manifest.blocks.transfers}`, `?at=${await hashOf(manifest.head.number - 1)}`]) {
      expect(await compare(`/pallets/on-going-referenda${query}`)).toMatchObject({ referenda: [] });
    }
    // The relay chain has no Referenda pallet now: sidecar does not mount the route there.
    expect((await getJson(`${relaySidecar.url}/pallets/on-going-referenda`)).status).toBe(404);
    const ours = await getJson(`${fastcar.url}/rc/pallets/on-going-referenda`);
    expect(ours.status).toBe(400);
    expect((ours.body as { message: string }).message).toMatch(/^The runtime does not include the module 'api.query.referenda' at this block height: \d+$/);
  });

  it('lists a referendum submitted on the root track, with its decision deposit, as sidecar 20 does', async () => {
    const signer = await devnetSigner(devnet.wsUrl);
    try {
      const { api, sender: alice } = signer;
      const nonce = (await api.rpc.system.accountNextIndex(alice.address)).toNumber();
      const proposal = { Inline: api.tx.system.remark('0x00').method.toHex() };
      const submit = await api.tx.referenda.submit({ system: 'Root' }, proposal, { After: 10 }).signAsync(alice, { nonce, era: 0 });
      const deposit = await api.tx.referenda.placeDecisionDeposit(0).signAsync(alice, { nonce: nonce + 1, era: 0 });
      await api.rpc('dev_newBlock' as never, { transactions: [submit.toHex(), deposit.toHex()] } as never);
      const head = ((await getJson(`${fastcar.url}/blocks/head/header?finalized=false`)).body as { number: string }).number;
      const listed = (await compare(`/pallets/on-going-referenda?at=${head}`)) as { referenda: { id: string; decisionDeposit: unknown }[] };
      expect(listed.referenda).toHaveLength(1);
      expect(listed.referenda[0]).toMatchObject({ id: '0', decisionDeposit: { who: alice.address } });
    } finally {
      await signer.close();
    }
  });
});

describe('sessionOfEpoch', () => {
  it('trails epochs by the offset of the last skip at or before the epoch', () => {
    expect(sessionOfEpoch(10n, [])).toBe(10n);
    const skipped: [bigint, bigint][] = [
      [30n, 20n],
      [16n, 12n],
    ];
    expect(sessionOfEpoch(15n, skipped)).toBe(15n);
    expect(sessionOfEpoch(16n, skipped)).toBe(12n);
    expect(sessionOfEpoch(18n, skipped)).toBe(14n);
    expect(sessionOfEpoch(31n, skipped)).toBe(21n);
  });
});
