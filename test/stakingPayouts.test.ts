// /accounts/{id}/staking-info and /staking-payouts against sidecar's final line, 20.14.1,
// on the devnet (Asset Hub Westend, staking there since 2025) with its relay chain beside
// it. The eras are written into this test's own devnet (test/support/stakingEras.ts):
// fourteen closed eras with exposures, points, rewards and claimed pages, two validators
// of the genesis and one whose controller is another account, two nominators. Every
// answer sidecar gives must be the same, field for field, except where sidecar is wrong
// (a nominator on a validator's second exposure page): there fastcar's figures are
// checked against the payout worked out by hand.
import { ApiPromise, WsProvider } from '@polkadot/api';

import type { Devnet } from '../devnet/chain';
import { startRelayDevnet, type RelayDevnet } from '../devnet/relayChain';
import { startFastcarOn } from '../harness/fastcar';
import { getJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import type { Fastcar } from '../src/server';
import { stakerPayout } from '../src/services/staking/payoutMath';
import { startDevnet } from './support/devnet';
import { sidecarComparison } from './support/sidecarCompare';
import { ACTIVE_ERA, IDLE_ERA, LAST_ERA, POINTLESS_ERA, TWO_PAGE_ERA, UNREWARDED_ERA, writeStakingEras, type StakingWorld } from '../devnet/stakingEras';

let devnet: Devnet;
let relay: RelayDevnet;
let api: ApiPromise;
let relayApi: ApiPromise;
let world: StakingWorld;
let sidecar: Peer;
let fastcar: Fastcar;
const { compare, both, compareError } = sidecarComparison(() => ({ sidecar: sidecar.url, fastcar: fastcar.url }));

beforeAll(async () => {
  [{ devnet }, relay] = await Promise.all([startDevnet(), startRelayDevnet({ port: 0 })]);
  [api, relayApi] = await Promise.all([devnet.wsUrl, relay.wsUrl].map((url) => ApiPromise.create({ provider: new WsProvider(url), noInitWarn: true })));
  world = await writeStakingEras(api, undefined, relayApi);
  const multiChain = JSON.stringify([{ url: relay.wsUrl, type: 'relay' }]);
  [sidecar, fastcar] = await Promise.all([
    startSidecar(devnet.wsUrl, '/runtime/spec', { SAS_SUBSTRATE_MULTI_CHAIN_URL: multiChain }, 20),
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0', FASTCAR_RELAY_URL: relay.wsUrl }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close(), api?.disconnect(), relayApi?.disconnect()]);
  await Promise.all([devnet?.close(), relay?.close()]);
});

const rpcCost = (answer: { headers: Headers }) => [Number(answer.headers.get('x-rpc-calls')), Number(answer.headers.get('x-rpc-waves'))];
const blocks = () => ['', `at=${world.height}`, `at=${world.hash}`];
const withQuery = (path: string, ...parts: string[]) => {
  const query = parts.filter(Boolean).join('&');
  return query ? `${path}?${query}` : path;
};

interface EraPayouts {
  era: string;
  payouts: { validatorId: string; nominatorStakingPayout: string; claimed: boolean; nominatorExposure: string; totalValidatorRewardPoints: string }[];
}

describe('/accounts/{accountId}/staking-info', () => {
  it('answers as sidecar 20 for nominators, validators and a stash with another controller, by height and by hash', async () => {
    for (const at of blocks()) {
      const nominator = (await compare(withQuery(`/accounts/${world.n1}/staking-info`, at))) as {
        staking: { claimedRewards: { era: string; status: string }[] };
      };
      const statuses = new Map(nominator.staking.claimedRewards.map(({ era, status }) => [Number(era), status]));
      // 84 eras of history; before the written ones no target was exposed.
      expect(nominator.staking.claimedRewards).toHaveLength(84);
      expect([statuses.get(LAST_ERA - 20), statuses.get(TWO_PAGE_ERA), statuses.get(TWO_PAGE_ERA + 1), statuses.get(TWO_PAGE_ERA + 2)]).toEqual([
        'undefined',
        'claimed',
        'claimed',
        'unclaimed',
      ]);
      // N2 is on the second page of the two-page era, which was not paid.
      const second = (await compare(withQuery(`/accounts/${world.n2}/staking-info`, at))) as { staking: { claimedRewards: { era: string; status: string }[] } };
      expect(second.staking.claimedRewards.find(({ era }) => Number(era) === TWO_PAGE_ERA)?.status).toBe('unclaimed');
      const validator = (await compare(withQuery(`/accounts/${world.v1}/staking-info`, at))) as { staking: { claimedRewards: { status: string }[] } };
      expect(validator.staking.claimedRewards.map(({ status }) => status)).toContain('partially claimed');
      await compare(withQuery(`/accounts/${world.v3}/staking-info`, at));
      await compare(withQuery(`/accounts/${world.v1}/staking-info`, at, 'includeClaimedRewards=false'));
    }
    expect((await getJson(`${fastcar.url}/v1/accounts/${world.n1}/staking-info`)).body).toEqual(
      (await getJson(`${fastcar.url}/accounts/${world.n1}/staking-info`)).body,
    );
  });

  it('reads the stash in one wave once `at` is resolved, the eras in the next, and answers the same question again from memory', async () => {
    const at = `at=${world.height}`;
    // The block's version and hash known first, by another question.
    await getJson(`${fastcar.url}/accounts/${world.v2}/staking-info?${at}&includeClaimedRewards=false`);
    const url = `${fastcar.url}/accounts/${world.v2}/staking-info?${at}`;
    expect(rpcCost(await getJson(`${fastcar.url}/accounts/${world.n2}/staking-info?${at}&includeClaimedRewards=false`))).toEqual([1, 1]);
    expect(rpcCost(await getJson(url))).toEqual([2, 2]);
    // Another controller's ledger is one more wave.
    expect(rpcCost(await getJson(`${fastcar.url}/accounts/${world.v3}/staking-info?${at}&includeClaimedRewards=false`))).toEqual([2, 2]);
    // The state at a block never changes: the same question there is answered without the node.
    expect(rpcCost(await getJson(url))).toEqual([0, 0]);
  });

  it('refuses what is no stash and bad addresses with 400s, with sidecar 20 its words', async () => {
    await compareError(`/accounts/${world.nobody}/staking-info`, 400);
    await compareError('/accounts/5FjeMtiRHxAmWmiUWaqUtRUzBzBsWfJcZMwpcXpxQbGZ17iX/staking-info', 400);
    await compareError(`/accounts/${world.n1}/staking-info?includeClaimedRewards=maybe`, 400);
  });
});

describe('/accounts/{accountId}/staking-payouts', () => {
  it('answers as sidecar 20 over 1, 10 and 12 eras, claimed or not, by era, by height and by hash', async () => {
    for (const at of blocks()) {
      const last = (await compare(withQuery(`/accounts/${world.n1}/staking-payouts`, at))) as { erasPayouts: EraPayouts[] };
      expect(last.erasPayouts.map(({ era }) => Number(era))).toEqual([LAST_ERA]);
      const ten = (await compare(withQuery(`/accounts/${world.n1}/staking-payouts`, at, 'depth=10', 'unclaimedOnly=false'))) as { erasPayouts: EraPayouts[] };
      // The era without a reward is left out, as sidecar leaves it out on an Asset Hub; the idle era lists none.
      expect(ten.erasPayouts.map(({ era }) => Number(era))).not.toContain(UNREWARDED_ERA);
      expect(ten.erasPayouts).toHaveLength(9);
      expect(ten.erasPayouts.find(({ era }) => Number(era) === IDLE_ERA)?.payouts).toEqual([]);
      // V2 earned no points in one era: no payout from it.
      expect(ten.erasPayouts.find(({ era }) => Number(era) === POINTLESS_ERA)?.payouts.map(({ validatorId }) => validatorId)).toEqual([world.v3, world.v1]);
      const unclaimed = (await compare(withQuery(`/accounts/${world.n1}/staking-payouts`, at, 'depth=10'))) as { erasPayouts: EraPayouts[] };
      expect(unclaimed.erasPayouts.flatMap(({ payouts }) => payouts).every(({ claimed }) => !claimed)).toBe(true);
      await compare(withQuery(`/accounts/${world.n1}/staking-payouts`, at, `era=${LAST_ERA - 3}`, 'depth=4', 'unclaimedOnly=false'));
      await compare(withQuery(`/accounts/${world.v1}/staking-payouts`, at, 'depth=12', 'unclaimedOnly=false'));
      await compare(withQuery(`/accounts/${world.v3}/staking-payouts`, at, 'depth=10'));
      await compare(withQuery(`/accounts/${world.n2}/staking-payouts`, at, 'depth=10', 'unclaimedOnly=false'));
      await compare(withQuery(`/accounts/${world.n1}/staking-payouts`, at, 'depth=0'));
    }
    for (const prefix of ['/v1', '']) {
      const path = `${prefix}/accounts/${world.n1}/staking-payouts?depth=10`;
      expect((await getJson(fastcar.url + path)).status).toBe(200);
    }
  });

  it("pays a nominator on a validator's second page, where sidecar 20 misses it", async () => {
    const query = `era=${TWO_PAGE_ERA}&depth=1&unclaimedOnly=false`;
    const listed = async (who: string) => {
      const { theirs, ours } = await both(`/accounts/${who}/staking-payouts?${query}`);
      const pick = (body: unknown) =>
        ((body as { erasPayouts: EraPayouts[] }).erasPayouts[0]?.payouts ?? []).filter(({ validatorId }) => validatorId === world.v1);
      return { theirs: pick(theirs.body), ours: pick(ours.body) };
    };
    const [first, second] = await Promise.all([listed(world.n1), listed(world.n2)]);
    // Sidecar looks for both on one page only: one of them goes unpaid there.
    expect(first.theirs.length + second.theirs.length).toBe(1);
    expect([first.ours.length, second.ours.length]).toEqual([1, 1]);
    // N1's page (0) was paid, N2's (1) was not.
    expect([first.ours[0]?.claimed, second.ours[0]?.claimed]).toEqual([true, false]);
    const era = TWO_PAGE_ERA;
    const [points, reward, prefs, overview] = await Promise.all([
      api.query.staking.erasRewardPoints(era),
      api.query.staking.erasValidatorReward(era),
      api.query.staking.erasValidatorPrefs(era, world.v1),
      api.query.staking.erasStakersOverview(era, world.v1),
    ]);
    const validatorPoints = [...points.individual.entries()].find(([who]) => who.toString() === world.v1)?.[1];
    const expected = stakerPayout({
      eraPoints: points.total.toBigInt(),
      eraPayout: reward.unwrap().toBigInt(),
      validatorPoints: BigInt(validatorPoints?.toString() ?? '0'),
      commission: prefs.commission.unwrap().toBigInt(),
      stakerExposure: BigInt(second.ours[0]?.nominatorExposure ?? '0'),
      totalExposure: overview.unwrap().total.unwrap().toBigInt(),
      isValidator: false,
    });
    expect(second.ours[0]?.nominatorStakingPayout).toBe(String(expected));
  });

  it('reads 10 eras in a bounded number of waves, and a closed era once', async () => {
    const path = `${fastcar.url}/accounts/${world.n2}/staking-payouts?at=${world.height}&depth=10&era=${LAST_ERA - 1}`;
    const [calls, waves] = rpcCost(await getJson(path));
    // The values, the eras' pages listed with their rewards and points, the pages, the validators' facts.
    expect(waves).toBeLessThanOrEqual(5);
    expect(calls).toBeLessThanOrEqual(16);
    // The same eras for another question: their exposures are kept, only the block's values and the validators' facts are read.
    const again = rpcCost(await getJson(`${path}&unclaimedOnly=false`));
    expect(again[1]).toBeLessThanOrEqual(2);
    expect(again[0]).toBeLessThan(calls);
    expect(rpcCost(await getJson(path))).toEqual([0, 0]);
  });

  it('refuses bad depths, eras and addresses with 400s, with sidecar 20 its words', async () => {
    const base = `/accounts/${world.n1}/staking-payouts`;
    await compareError(`${base}?depth=85`, 400);
    await compareError(`${base}?depth=abc`, 400);
    await compareError(`${base}?depth=-1`, 400);
    await compareError(`${base}?era=1.5`, 400);
    await compareError(`${base}?era=${LAST_ERA + 1}`, 400);
    await compareError(`${base}?era=9250&depth=30`, 400);
    await compareError(`${base}?depth=1&depth=2`, 400);
    await compareError(`${base}?era=1&era=2`, 400);
    await compareError(`${base}?unclaimedOnly=yes`, 400);
    await compareError('/accounts/notanaddress/staking-payouts', 400);
  });

  it('answers useRcBlock as sidecar 20 (no relay block of the devnet includes one), and a 400 on a relay chain without staking', async () => {
    for (const route of ['staking-info', 'staking-payouts?depth=10&']) {
      const path = `/accounts/${world.n1}/${route}${route.endsWith('&') ? '' : '?'}useRcBlock=true`;
      expect(await compare(path)).toEqual([]);
      await compare(`${path}&useRcBlockFormat=object`);
      const onRelay = await getJson(`${fastcar.url}/rc/accounts/${world.n1}/${route.split('?')[0]}`);
      expect([onRelay.status, (onRelay.body as { message: string }).message]).toEqual([400, 'Staking pallet not found for queried runtime']);
    }
  });

  it('answers 400 for eras the relay chain paid before the migration, where sidecar 20 fails with a 500', async () => {
    const { theirs, ours } = await both(`/accounts/${world.n1}/staking-payouts?depth=84`);
    expect([theirs.status, ours.status]).toEqual([500, 400]);
    expect((ours.body as { message: string }).message).toMatch(/relay chain before staking moved/);
  });
});

describe('/pallets/staking/progress with eras in place', () => {
  it('answers as sidecar 20, the active era started where BondedEras says, by height and by hash', async () => {
    for (const at of blocks()) {
      const progress = (await compare(withQuery('/pallets/staking/progress', at))) as {
        activeEra: string;
        nextActiveEraEstimate: string;
        at: { height: string };
      };
      expect(progress.activeEra).toBe(String(ACTIVE_ERA));
      // Written to have begun a session ago: the era ends ahead of the block, not behind it.
      expect(Number(progress.nextActiveEraEstimate)).toBeGreaterThan(Number(progress.at.height));
    }
  });

  it("answers a chain's own inconsistency (no start session for the active era, a stash's ledger missing) with sidecar 20 its 500 and words", async () => {
    const staking = api.query.staking;
    const keys = [staking.bondedEras.key(), staking.ledger.key(world.controller3)];
    const kept = await Promise.all(keys.map(async (key) => (await api.rpc.state.getStorage(key)) as unknown as { toHex(): string; isEmpty: boolean }));
    // The devnet's eras before they were written in full: BondedEras still at genesis, and a ledger lost.
    await api.rpc(
      'dev_setStorage' as never,
      [
        [keys[0], api.createType('Vec<(u32,u32)>', [[0, 0]]).toHex()],
        [keys[1], null],
      ] as never,
    );
    await api.rpc('dev_newBlock' as never, {} as never);
    const height = (await api.rpc.chain.getHeader()).number.toNumber();
    try {
      const progress = await compareError(`/pallets/staking/progress?at=${height}`, 500);
      expect(progress).toBe('EraStartSessionIndex is None when Some was expected.');
      const info = await compareError(`/accounts/${world.v3}/staking-info?at=${height}`, 500);
      expect(info).toBe(`Staking ledger could not be found for controller address "${world.controller3}"`);
    } finally {
      await api.rpc('dev_setStorage' as never, keys.map((key, i) => [key, kept[i]!.isEmpty ? null : kept[i]!.toHex()]) as never);
      await api.rpc('dev_newBlock' as never, {} as never);
    }
  });
});
