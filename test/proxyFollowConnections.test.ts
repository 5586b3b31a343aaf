// chainHead follows as a Substrate node keeps them, which chopsticks does not
// play: known only on the connection that opened them, four to a connection.
// The proxy spreads follows over connections within that limit, sends every
// call naming a follow over the connection holding it, and ends the follows of
// a connection that closes (and only those) with `stop`.
import { createLogger } from '../src/logger';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import type { RpcProxy } from '../src/proxy/proxyServer';
import { startProxy } from '../src/proxy/startProxy';
import type { UpstreamPool } from '../src/proxy/upstreamPool';
import { startFollowingNode, type FollowingNode } from './support/followingNode';
import { connectSubscriber, type SubscriptionClient } from './support/subscriptionClient';

let node: FollowingNode;
let proxy: RpcProxy;
let pool: UpstreamPool;
let client: SubscriptionClient;
const HASH = `0x${'11'.repeat(32)}`;
/** The client's follows, in the order opened: the node numbers its own ids the same way (follow-1, ...). */
const follows: string[] = [];

beforeAll(async () => {
  node = await startFollowingNode();
  const started = await startProxy(proxyConfigFor([node.url], { port: 0, healthIntervalMs: 200, logLevel: 'silent' }), createLogger('silent'));
  ({ proxy, pool } = started);
  client = await connectSubscriber(`ws://${started.address}`);
});

afterAll(async () => {
  client?.close();
  await proxy?.close();
  await node?.close();
});

type Event = { event: string; operationId?: string };

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not so within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function follow(): Promise<string> {
  const id = await client.call<string>('chainHead_v1_follow', [false]);
  await client.next<Event>(id, (event) => event.event === 'initialized');
  return id;
}

/** The node's id for a client's follow: the proxy's ids are its own, so the order they were opened in tells. */
const nodeIdOf = (order: number) => `follow-${order}`;

it('puts at most four follows on one connection to the node, and sends each call naming a follow over its connection', async () => {
  for (let i = 0; i < 6; i++) follows.push(await follow());
  expect(node.followsPerConnection().sort()).toEqual([2, 4]);
  expect(pool.upstreams[0].connections).toBe(2);
  for (const id of follows) {
    // On the wrong connection the node would not know the follow: null, limitReached.
    expect(await client.call('chainHead_v1_header', [id, HASH])).toBe('0x00');
    const started = await client.call<{ result: string; operationId: string }>('chainHead_v1_body', [id, HASH]);
    expect(started.result).toBe('started');
    await client.next<Event>(id, (event) => event.event === 'operationBodyDone' && event.operationId === started.operationId);
  }
  // The node's own answer to a stale follow is passed on too: unfollowed at the node, the proxy's id still answers.
  expect(await client.call('chainHead_v1_unfollow', [follows[5]])).toBeNull();
  expect(node.followsPerConnection().sort()).toEqual([1, 4]);
});

it('passes on a stop the node sends, and forgets the follow', async () => {
  const id = await follow();
  const nodeId = nodeIdOf(7);
  const bodiesBefore = node.calls.get('chainHead_v1_body') ?? 0;
  node.stop(nodeId);
  expect(await client.next<Event>(id, (event) => event.event === 'stop')).toEqual({ event: 'stop' });
  // Given back, and no longer the client's: answered without the node.
  await until(() => pool.upstreams[0].subscriptions === 5);
  expect(await client.call('chainHead_v1_body', [id, HASH])).toEqual({ result: 'limitReached' });
  expect(node.calls.get('chainHead_v1_body') ?? 0).toBe(bodiesBefore);
});

it('ends with `stop` the follows of a connection that closes, and only those', async () => {
  // follow-1 to follow-4 share the first connection; follow-5 is alone on the second.
  expect(node.followsPerConnection()).toEqual([4, 1]);
  const lost = follows.slice(0, 4);
  node.dropConnectionOf(nodeIdOf(1));
  for (const id of lost) expect(await client.next<Event>(id, (event) => event.event === 'stop')).toEqual({ event: 'stop' });
  expect(await client.call('chainHead_v1_header', [follows[4], HASH])).toBe('0x00');
  expect(client.events(follows[4]).some((event) => (event as Event).event === 'stop')).toBe(false);
  for (const id of lost) expect(await client.call('chainHead_v1_body', [id, HASH])).toEqual({ result: 'limitReached' });
  await until(() => pool.upstreams[0].subscriptions === 1);
  // The first connection comes back (the proxy reconnects), and takes follows again.
  await until(() => pool.upstreams[0].available, 10_000);
  const again = await follow();
  expect(await client.call('chainHead_v1_header', [again, HASH])).toBe('0x00');
});
