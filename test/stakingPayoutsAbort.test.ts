// A staking-payouts request reads its eras a batch at a time, each batch in waves: when
// its client leaves, no further wave is started. Counted on the wire by a relay between
// fastcar and the devnet, with nothing kept between requests.
import { ApiPromise, WsProvider } from '@polkadot/api';

import type { Devnet } from '../devnet/chain';
import { LAST_ERA, writeStakingEras, type StakingWorld } from '../devnet/stakingEras';
import { startFastcarOn } from '../harness/fastcar';
import { getJson } from '../harness/http';
import { startTap, type RpcTap } from '../harness/rpcTap';
import type { Fastcar } from '../src/server';
import { ERAS_PER_WAVE } from '../src/services/staking/stakingPayouts';
import { startDevnet } from './support/devnet';

let devnet: Devnet;
let relay: RpcTap;
let fastcar: Fastcar;
let world: StakingWorld;

// Sixteen eras: the most westmint answers after its relay-paid ones, two batches.
const DEPTH = 16;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  ({ devnet } = await startDevnet());
  const api = await ApiPromise.create({ provider: new WsProvider(devnet.wsUrl), noInitWarn: true });
  world = await writeStakingEras(api);
  await api.disconnect();
  relay = await startTap(devnet.wsUrl);
  fastcar = await startFastcarOn(relay.url, { FASTCAR_CACHE_MAX_BYTES: '0', FASTCAR_PREBUILD_BLOCKS: '0' });
  await getJson(`${fastcar.url}/runtime/spec`); // the runtime, once
}, 240_000);

afterAll(async () => {
  await fastcar?.close();
  await relay?.close();
  await devnet?.close();
});

it('stops reading eras when the client of a staking-payouts request leaves', async () => {
  const path = `/accounts/${world.n1}/staking-payouts?depth=${DEPTH}&era=${LAST_ERA}&unclaimedOnly=false`;
  relay.reset();
  const whole = await getJson(`${fastcar.url}${path}`);
  expect(whole.status).toBe(200);
  // Eras without a recorded reward are left out on an Asset Hub, as sidecar leaves them.
  expect((whole.body as { erasPayouts: { era: string }[] }).erasPayouts.map(({ era }) => Number(era))).toContain(LAST_ERA - DEPTH + 3);
  const wholeCalls = relay.counts.calls;
  // Every era's pages listed, one call each, in two batches.
  expect(relay.counts.methods.state_getKeysPaged).toBe(DEPTH);

  relay.setDelay(150); // a node a little further away: the first batch's listing is on the wire for a while
  try {
    relay.reset();
    const leaving = new AbortController();
    const request = fetch(`${fastcar.url}${path}`, { signal: leaving.signal }).catch(() => undefined);
    while ((relay.counts.methods.state_getKeysPaged ?? 0) === 0) await sleep(10);
    leaving.abort();
    await request;
    await sleep(1_500); // the listing wave on its way finishes
    const atLeave = relay.counts.calls;
    await sleep(1_500);
    console.log(`staking-payouts over ${DEPTH} eras: ${wholeCalls} calls answered, ${atLeave} when the client left during the first listing`);
    expect(relay.counts.calls).toBe(atLeave);
    // The first batch's listing only: neither its pages, nor the second batch, nor the validators' facts.
    expect(relay.counts.methods.state_getKeysPaged).toBe(ERAS_PER_WAVE);
    // The block's staking values, then the first batch's rewards and points beside its listing.
    expect(relay.counts.methods.state_queryStorageAt ?? 0).toBeLessThanOrEqual(2);
    expect(atLeave).toBeLessThan(wholeCalls - (DEPTH - ERAS_PER_WAVE));
  } finally {
    relay.setDelay(0);
  }
}, 60_000);

it('reads the eras once for stakers asked about at the same time, and answers each as if asked alone', async () => {
  const pathOf = (staker: string) => `/accounts/${staker}/staking-payouts?depth=${DEPTH}&era=${LAST_ERA}&unclaimedOnly=false`;
  const stakers = [world.n1, world.n2, world.v1, world.v2, world.v3];
  // One at a time first (nothing is kept between requests here): each reads every era's pages.
  const alone: unknown[] = [];
  relay.reset();
  for (const staker of stakers) alone.push((await getJson(`${fastcar.url}${pathOf(staker)}`)).body);
  const listingsAlone = relay.counts.methods.state_getKeysPaged ?? 0;
  expect(listingsAlone).toBe(DEPTH * stakers.length);

  relay.setDelay(20); // a node a little away: all five are in flight together
  try {
    relay.reset();
    const together = await Promise.all(stakers.map((staker) => getJson(`${fastcar.url}${pathOf(staker)}`)));
    expect(together.map(({ status }) => status)).toEqual(stakers.map(() => 200));
    expect(together.map(({ body }) => body)).toEqual(alone);
    // Each era's pages listed once for all five.
    expect(relay.counts.methods.state_getKeysPaged).toBe(DEPTH);
  } finally {
    relay.setDelay(0);
  }
}, 60_000);

it('goes on reading for the stakers still waiting when the one who started the read leaves', async () => {
  const pathOf = (staker: string) => `/accounts/${staker}/staking-payouts?depth=${DEPTH}&era=${LAST_ERA}&unclaimedOnly=false`;
  const expected = (await getJson(`${fastcar.url}${pathOf(world.n2)}`)).body;
  relay.setDelay(150);
  try {
    relay.reset();
    const leaving = new AbortController();
    const first = fetch(`${fastcar.url}${pathOf(world.n1)}`, { signal: leaving.signal }).catch(() => undefined);
    while ((relay.counts.methods.state_getKeysPaged ?? 0) === 0) await sleep(10);
    const staying = getJson(`${fastcar.url}${pathOf(world.n2)}`);
    await sleep(50);
    leaving.abort();
    await first;
    const answer = await staying;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(expected);
  } finally {
    relay.setDelay(0);
  }
}, 60_000);
