// A fleet on one machine: fastcar replicas in processes of their own sharing one real
// Redis, behind nginx as a user runs them, on the devnet, each reaching the node
// through an RPC tap of its own, each with its extrinsic index on. While a client
// polls /blocks/head and /blocks/{n} through nginx, a client of each replica asks it for
// each new block and its header the moment it is built, and each replica has a block
// stream open, new (small) blocks are finalized: three replicas cost the node what one
// does per new block (each block's answer, per option set, built once across the fleet
// and read once: the indexes take its extrinsic hashes from that build; a new height's
// hash and header come with the head each replica follows); a replica killed while it
// holds a block's lease leaves the block to another within the lease time, with no
// client seeing an error; Redis killed, the replicas serve on, each building for
// itself, and each says so once.
import type { Devnet } from '../devnet/chain';
import { callsOf, ensureNginx, HeadPoller, startNginx, startReplica, type Balancer, type Replica } from '../harness/fleet';
import { startRedis, type Peer } from '../harness/processes';
import type { TappedCall } from '../harness/rpcTap';
import { openStream, type SseStream } from '../harness/sseClient';
import { startDevnet } from './support/devnet';

const LEASE_MS = 3000;
/** The client's polls after each new block, and the pause between two. */
const POLLS_PER_BLOCK = 10;
const POLL_GAP_MS = 100;
const BLOCK_MS = POLLS_PER_BLOCK * POLL_GAP_MS;

let devnet: Devnet;
let redis: Peer;
const replicas: Replica[] = [];
let balancer: Balancer | undefined;
const streams: SseStream[] = [];

/** chain_getBlock calls each replica sent, by block hash. */
const blockReads: { replica: number; hash: string; at: number }[] = [];
/** The replica whose chain_getBlock calls are held unanswered (a build that stalls mid-way), and the calls held. */
let holding = -1;
const held: { hash: string; at: number }[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function routeFor(replica: number) {
  return (call: TappedCall) => {
    if (call.method !== 'chain_getBlock') return undefined;
    const hash = String(call.params?.[0]);
    if (replica === holding) {
      held.push({ hash, at: Date.now() });
      return { dropAfterMs: 60_000 };
    }
    blockReads.push({ replica, hash, at: Date.now() });
    return undefined;
  };
}

let replicasStarted = 0;
const addReplica = async () => {
  // Numbered before the start, which other replicas' starts overlap.
  const index = replicasStarted++;
  replicas[index] = await startReplica(
    devnet.wsUrl,
    { REDIS_URL: redis.url, FASTCAR_BUILD_LEASE_MS: String(LEASE_MS), FASTCAR_EXTRINSIC_INDEX_BLOCKS: '4' },
    routeFor(index),
  );
};

const newBlock = async () => {
  const block = await devnet.chain.newBlock();
  return { number: block.number, hash: block.hash };
};

beforeAll(async () => {
  ensureNginx();
  ({ devnet } = await startDevnet());
  redis = await startRedis();
  await addReplica();
}, 300_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await balancer?.stop();
  await Promise.all(replicas.map((replica) => replica.stop()));
  await redis?.stop();
  await devnet?.close();
});

/** What the fleet's replicas have counted under `outcome` in fastcar_block_builds_leased_total. */
async function leasedBuilds(fleet: Replica[], outcome: string): Promise<number> {
  let sum = 0;
  for (const replica of fleet) {
    const text = await (await fetch(`${replica.metricsUrl}/metrics`)).text();
    const match = new RegExp(`^fastcar_block_builds_leased_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text);
    sum += Number(match?.[1] ?? 0);
  }
  return sum;
}

/**
 * Node calls per new block across `fleet` while the client polls through nginx (the
 * same polls per block, however many replicas) and a stream (eventDocs, an option set
 * of its own) is open on each replica; the blocks' chain_getBlock calls apart (one per build).
 */
async function callsPerBlock(fleet: Replica[], blocks: number) {
  await balancer?.stop();
  balancer = await startNginx(fleet.map((replica) => replica.url));
  const opened = await Promise.all(fleet.map((replica) => openStream(`${replica.url}/blocks/stream?eventDocs=true`)));
  streams.push(...opened);
  const client = new HeadPoller([balancer.url]);
  // A first block with everything open: runtimes, hash windows and stream channels are warm.
  await newBlock();
  await client.rounds(POLLS_PER_BLOCK, POLL_GAP_MS);
  for (const replica of fleet) replica.relay.reset();
  const firstRead = blockReads.length;
  const built: number[] = [];
  const hashes: string[] = [];
  const asked: number[] = [];
  for (let i = 0; i < blocks; i++) {
    const block = await newBlock();
    built.push(block.number);
    hashes.push(block.hash);
    // A client of each replica asks it for the new block and its header at once.
    const direct = fleet.flatMap((replica) => [`/blocks/${block.number}`, `/blocks/${block.number}/header`].map((path) => fetch(replica.url + path)));
    asked.push(...(await Promise.all(direct)).map((answer) => answer.status));
    await client.rounds(POLLS_PER_BLOCK, POLL_GAP_MS);
  }
  expect(asked.filter((status) => status !== 200)).toEqual([]);
  await sleep(500);
  const calls = callsOf(fleet);
  const reads = blockReads.slice(firstRead).filter((read) => hashes.includes(read.hash)).length;
  // Every stream received every block.
  for (const stream of opened) {
    const heights = stream.events.filter((event) => event.id !== undefined).map((event) => Number(event.id));
    expect(heights.slice(-blocks)).toEqual(built);
    stream.close();
  }
  return { perBlock: calls / blocks, readsPerBlock: reads / blocks, failures: client.failures, calls: fleet.map((replica) => replica.relay.counts.methods) };
}

it('three replicas cost the node what one does per new block, block streams included', async () => {
  const one = await callsPerBlock(replicas, 4);
  await Promise.all([addReplica(), addReplica()]);
  const three = await callsPerBlock(replicas, 4);
  expect([one.failures, three.failures]).toEqual([[], []]);
  // Two option sets (the client's and the streams' eventDocs=true), each built once per block by the whole fleet;
  // the extrinsic indexes read no block of their own.
  expect([one.readsPerBlock, three.readsPerBlock]).toEqual([2, 2]);
  // A new height's hash and header come with the followed head: no replica looks either up.
  for (const method of ['chain_getBlockHash', 'chain_getHeader']) {
    expect({ method, calls: three.calls.map((counts) => counts[method] ?? 0) }).toEqual({ method, calls: [0, 0, 0] });
  }
  if (three.perBlock > 1.2 * one.perBlock)
    throw new Error(`node calls per block: one replica ${one.perBlock}, three ${three.perBlock}: ${JSON.stringify(three.calls)}`);
}, 600_000);

it('a replica killed while it builds a block: another builds it within the lease time, and no client sees an error', async () => {
  balancer = await startNginx(replicas.map((replica) => replica.url));
  const [victim, ...survivors] = [0, 1, 2];
  const client = new HeadPoller([balancer.url]);
  const stopPolling = client.every(POLL_GAP_MS);
  await newBlock();
  await sleep(BLOCK_MS);
  const tookOverBefore = await leasedBuilds(replicas, 'tookOver');
  // The others hear of the next block a moment late, so the victim is the one that takes its lease.
  for (const survivor of survivors) replicas[survivor].relay.setDelay(400);
  holding = victim;
  const block = await newBlock();
  const deadline = Date.now() + 10_000;
  while (!held.some((call) => call.hash === block.hash) && Date.now() < deadline) await sleep(20);
  const leaseTaken = held.find((call) => call.hash === block.hash)?.at ?? Number.NaN;
  await sleep(300);
  await replicas[victim].kill();
  for (const survivor of survivors) replicas[survivor].relay.setDelay(0);
  // The block's answer, through nginx, while its build is another's to make.
  const answer = await fetch(`${balancer.url}/blocks/${block.number}`);
  expect(answer.status).toBe(200);
  expect(((await answer.json()) as { hash: string }).hash).toBe(block.hash);
  await sleep(BLOCK_MS);
  await stopPolling();
  expect(client.failures).toEqual([]);
  expect(client.answered).toBeGreaterThan(20);
  const rebuilt = blockReads.filter((read) => read.hash === block.hash);
  expect(rebuilt.length).toBeGreaterThan(0);
  expect(rebuilt.every((read) => survivors.includes(read.replica))).toBe(true);
  expect(rebuilt[0].at - leaseTaken).toBeLessThan(LEASE_MS + 1000);
  // One survivor took the lease over once it lapsed; the other waited for that one.
  const survivorFleet = survivors.map((survivor) => replicas[survivor]);
  expect((await leasedBuilds(survivorFleet, 'tookOver')) - tookOverBefore).toBe(1);
  for (const survivor of survivorFleet) {
    const direct = await fetch(`${survivor.url}/blocks/${block.number}`);
    expect([direct.status, ((await direct.json()) as { hash: string }).hash]).toEqual([200, block.hash]);
  }
}, 300_000);

it('Redis killed: the replicas serve on, each building every new block for itself, and say so once', async () => {
  const survivors = [1, 2];
  // Said before, maybe: a Redis call that timed out on this busy machine counts as Redis away too.
  const awaySaid = () => survivors.map((survivor) => replicas[survivor].output().split('Redis is away').length - 1);
  const saidBefore = awaySaid();
  process.kill(redis.pid, 'SIGKILL');
  await sleep(500);
  const client = new HeadPoller([balancer?.url ?? '']);
  const built: string[] = [];
  for (let i = 0; i < 3; i++) {
    built.push((await newBlock()).hash);
    await client.rounds(POLLS_PER_BLOCK, POLL_GAP_MS);
  }
  expect(client.failures).toEqual([]);
  expect(client.answered).toBe(3 * 2 * POLLS_PER_BLOCK);
  for (const survivor of survivors) {
    const reads = new Set(blockReads.filter((read) => read.replica === survivor).map((read) => read.hash));
    expect(built.filter((hash) => reads.has(hash))).toEqual(built);
  }
  expect(awaySaid()).toEqual(saidBefore.map((times) => times + 1));
}, 300_000);
