// The coretime devnet (Coretime Westend from genesis in chopsticks: devnet/coretimeChain.ts)
// and the Broker state test/support/coretimeState.ts gives it by real extrinsics, read back
// at the heights the seeding recorded. A runtime or chopsticks change that breaks the
// seeding (a call refused, the relay parent no longer steerable, a sale that does not
// rotate) fails here rather than in the /coretime comparisons built on it.
import '../devnet/quiet';
import { ApiPromise, WsProvider } from '@polkadot/api';
import type { ApiDecoration } from '@polkadot/api/types';

import { startCoretimeDevnet, type CoretimeDevnet } from '../devnet/coretimeChain';
import { seedCoretime, type CoretimeState } from './support/coretimeState';

let devnet: CoretimeDevnet;
let state: CoretimeState;
let api: ApiPromise;

const FULL = `0x${'ff'.repeat(10)}`;
const FIRST_HALF = `0x${'ff'.repeat(5)}${'00'.repeat(5)}`;
const SECOND_HALF = `0x${'00'.repeat(5)}${'ff'.repeat(5)}`;

beforeAll(async () => {
  devnet = await startCoretimeDevnet({ port: 0 });
  state = await seedCoretime(devnet.wsUrl);
  api = await ApiPromise.create({ provider: new WsProvider(devnet.wsUrl), noInitWarn: true });
}, 120_000);

afterAll(async () => {
  await api?.disconnect();
  await devnet?.close();
});

async function at(height: number): Promise<ApiDecoration<'promise'>> {
  return api.at(await api.rpc.chain.getBlockHash(height));
}

const json = (value: { toJSON(): unknown }) => value.toJSON();

async function regionsAt(height: number) {
  const entries = await (await at(height)).query.broker.regions.entries();
  return entries
    .map(([key, value]) => ({ id: json(key.args[0]), record: json(value.unwrap()) as { end: number; owner: string | null; paid: number | null } }))
    .sort((a, b) => JSON.stringify(a.id).localeCompare(JSON.stringify(b.id)));
}

it('builds blocks on the parachain runtime with a relay parent it can be told, and has a sudo key', async () => {
  expect(state.before).toBeGreaterThanOrEqual(devnet.head);
  expect(state.head).toBe(Number((await api.rpc.chain.getHeader()).number.toString()));
  expect((await api.rpc.state.getRuntimeVersion()).specName.toString()).toBe('coretime-westend');
  expect(json(await (await at(state.before)).query.sudo.key())).toBe(api.createType('AccountId', devnet.sudo).toString());
  // The purchase block's relay parent was jumped past the sale's start; the relay parent only grows.
  const order = ['before', 'configured', 'reserved', 'leased', 'salesStarted', 'purchased', 'partitioned', 'assigned', 'jumped', 'rotated', 'head'];
  const relay = order.map((name) => state.relayParents[name]);
  expect([...relay].sort((a, b) => a - b)).toEqual(relay);
  expect(state.relayParents.jumped).toBeGreaterThanOrEqual(state.regionBegin * 80 - 10);
});

it('has no Broker state before the seeding, then the configuration, two reservations and two leases', async () => {
  const before = await at(state.before);
  expect((await before.query.broker.configuration()).isNone).toBe(true);
  expect((await before.query.broker.saleInfo()).isNone).toBe(true);
  expect((await before.query.broker.reservations()).length).toBe(0);
  expect((await before.query.broker.leases()).length).toBe(0);

  expect(json(await (await at(state.configured)).query.broker.configuration())).toEqual({
    advanceNotice: 10,
    interludeLength: 2,
    leadinLength: 20,
    regionLength: 3,
    idealBulkProportion: 600_000_000,
    limitCoresOffered: null,
    renewalBump: 30_000_000,
    contributionTimeout: 5,
  });
  expect(json(await (await at(state.reserved)).query.broker.reservations())).toEqual([
    [{ mask: FULL, assignment: { task: state.reservedTask } }],
    [{ mask: FULL, assignment: { pool: null } }],
  ]);
  const leases = json(await (await at(state.leased)).query.broker.leases()) as { until: number; task: number }[];
  expect(leases.map((lease) => lease.task)).toEqual(state.leasedTasks);
  expect(json(await (await at(state.head)).query.broker.leases())).toEqual(leases);
});

it('opens a sale of four cores after the eight reserved and leased, and sells three of them', async () => {
  const started = await at(state.salesStarted);
  expect(json(await started.query.broker.status())).toMatchObject({ coreCount: 8 });
  const sale = json(await started.query.broker.saleInfo()) as Record<string, number | null>;
  expect(sale).toMatchObject({ saleIndex: 1, firstCore: 4, coresOffered: 4, coresSold: 0, regionBegin: state.regionBegin, regionEnd: state.regionEnd });
  expect(state.relayParents.purchased).toBeGreaterThan(sale.saleStart as number);

  const sold = json(await (await at(state.purchased)).query.broker.saleInfo()) as Record<string, number | string | null>;
  expect(sold).toMatchObject({ saleIndex: 1, coresSold: 3 });
  expect(sold.selloutPrice).not.toBeNull();
  const regions = await regionsAt(state.purchased);
  expect(regions.map(({ id, record }) => [id, record.owner, record.end])).toEqual([
    [{ begin: state.regionBegin, core: 4, mask: FULL }, state.buyer, state.regionEnd],
    [{ begin: state.regionBegin, core: 5, mask: FULL }, state.buyer, state.regionEnd],
    [{ begin: state.regionBegin, core: 6, mask: FULL }, state.secondBuyer, state.regionEnd],
  ]);
  expect(regions.every(({ record }) => Number(record.paid) > 0)).toBe(true);
});

it('splits the regions by time and mask, and keeps those not finally assigned to the head', async () => {
  expect((await regionsAt(state.partitioned)).length).toBe(6);
  const left = (await regionsAt(state.head)).map(({ id, record }) => ({ id, owner: record.owner, end: record.end }));
  const expected = state.regions.map(({ id, owner, end }) => ({ id, owner, end }));
  expect(left).toEqual(expected.sort((a, b) => JSON.stringify(a.id).localeCompare(JSON.stringify(b.id))));
  expect(new Set(left.map(({ id }) => `${(id as { begin: number }).begin}`)).size).toBe(2);
  expect(new Set(left.map(({ id }) => (id as { mask: string }).mask))).toEqual(new Set([FULL, FIRST_HALF, SECOND_HALF]));
  // A partition forgets what was paid (no renewal can come of its pieces); an interlace keeps it.
  const paid = (await regionsAt(state.head)).map(({ record }) => record.paid !== null);
  expect(paid.filter(Boolean)).toHaveLength(1);
});

it('plans the assigned regions and leaves a complete and a partial potential renewal', async () => {
  const assigned = await at(state.assigned);
  const plan = async (timeslice: number, core: number) => json(await assigned.query.broker.workplan([timeslice, core]));
  expect(await plan(state.regionBegin, 4)).toEqual([{ mask: FULL, assignment: { task: state.assignedTasks.whole } }]);
  expect(await plan(state.regionBegin, 6)).toEqual([{ mask: FIRST_HALF, assignment: { task: state.assignedTasks.half } }]);
  expect(await plan(state.regionBegin + 1, 5)).toEqual([{ mask: FIRST_HALF, assignment: { task: state.assignedTasks.provisional } }]);

  const renewals = (await (await at(state.head)).query.broker.potentialRenewals.entries()).map(([key, value]) => [json(key.args[0]), json(value.unwrap())]);
  expect(renewals).toHaveLength(2);
  const byCore = new Map(renewals.map(([id, record]) => [(id as { core: number }).core, { id, record: record as { completion: unknown; price: number } }]));
  expect(byCore.get(4)?.id).toEqual({ core: 4, when: state.regionEnd });
  expect(byCore.get(4)?.record.completion).toEqual({ complete: [{ mask: FULL, assignment: { task: state.assignedTasks.whole } }] });
  expect(byCore.get(6)?.record.completion).toEqual({ partial: FIRST_HALF });
});

it('rotates to the second sale, putting the first sale’s assignments, the reservations and the leases to work', async () => {
  const rotated = await at(state.rotated);
  const before = await at(state.rotated - 1);
  expect(json(await before.query.broker.saleInfo())).toMatchObject({ saleIndex: 1 });
  expect(json(await rotated.query.broker.saleInfo())).toMatchObject({ saleIndex: 2, regionBegin: state.regionEnd, firstCore: 4 });

  const workload = new Map((await rotated.query.broker.workload.entries()).map(([key, value]) => [key.args[0].toNumber(), json(value)]));
  expect(workload.get(0)).toEqual([{ mask: FULL, assignment: { task: state.reservedTask } }]);
  expect(workload.get(1)).toEqual([{ mask: FULL, assignment: { pool: null } }]);
  expect(workload.get(2)).toEqual([{ mask: FULL, assignment: { task: state.leasedTasks[0] } }]);
  expect(workload.get(3)).toEqual([{ mask: FULL, assignment: { task: state.leasedTasks[1] } }]);
  expect(workload.get(4)).toEqual([{ mask: FULL, assignment: { task: state.assignedTasks.whole } }]);
  expect(workload.get(6)).toEqual([{ mask: FIRST_HALF, assignment: { task: state.assignedTasks.half } }]);
  // The core nobody bought goes to the pool for the first sale's regions.
  expect(workload.get(7)).toEqual([{ mask: FULL, assignment: { pool: null } }]);

  // Still planned at the head: the next sale's reserved and leased cores, and the provisional piece.
  const planned = (await (await at(state.head)).query.broker.workplan.entries()).map(([key]) => json(key.args[0]) as [number, number]);
  expect(planned.sort((a, b) => a[0] - b[0] || a[1] - b[1])).toEqual([
    [state.regionBegin + 1, 5],
    [state.regionEnd, 0],
    [state.regionEnd, 1],
    [state.regionEnd, 2],
    [state.regionEnd, 3],
  ]);
});
