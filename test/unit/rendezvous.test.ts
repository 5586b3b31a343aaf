// Rendezvous hashing of client addresses over nodes: the spread follows the
// weights, and a change in the set of nodes moves only the clients it must.
import { rendezvousPick, uniformHash } from '../../src/proxy/rendezvous';

interface Node {
  url: string;
  weight: number;
}

/** 20,000 addresses, IPv4 and IPv6 /64 keys as clientAddress.ts makes them. */
const CLIENTS = Array.from({ length: 20_000 }, (_, i) =>
  i % 3 === 0 ? `2001:db8:${(i >>> 8).toString(16)}:${(i & 0xff).toString(16)}::/64` : `10.${(i >>> 16) & 0xff}.${(i >>> 8) & 0xff}.${i & 0xff}`,
);

const place = (client: string, nodes: Node[]) =>
  rendezvousPick(
    client,
    nodes,
    (node) => node.url,
    (node) => node.weight,
  )!.url;

function shares(nodes: Node[]): Map<string, number> {
  const counts = new Map<string, number>(nodes.map((node) => [node.url, 0]));
  for (const client of CLIENTS) {
    const url = place(client, nodes);
    counts.set(url, counts.get(url)! + 1);
  }
  return new Map([...counts].map(([url, count]) => [url, count / CLIENTS.length]));
}

const node = (name: string, weight = 1): Node => ({ url: `ws://${name}:9944`, weight });

/** Within this of its weight's share (20,000 draws: one standard deviation is at most 0.35 points). */
const TOLERANCE = 0.015;

it('hashes to values spread evenly over (0, 1)', () => {
  const buckets = new Array<number>(10).fill(0);
  let outside = 0;
  for (const client of CLIENTS) {
    const u = uniformHash(client);
    if (!(u > 0 && u < 1)) outside += 1;
    else buckets[Math.floor(u * buckets.length)] += 1;
  }
  expect(outside).toBe(0);
  for (const count of buckets) expect(Math.abs(count / CLIENTS.length - 1 / buckets.length)).toBeLessThan(0.007);
});

it('spreads clients evenly over nodes of equal weight', () => {
  const nodes = ['a', 'b', 'c', 'd'].map((name) => node(name));
  for (const share of shares(nodes).values()) expect(Math.abs(share - 0.25)).toBeLessThan(TOLERANCE);
});

it("gives each node its weight's share of the clients", () => {
  const nodes = [node('a', 3), node('b', 1), node('c', 2), node('d', 0.5)];
  const total = nodes.reduce((sum, n) => sum + n.weight, 0);
  const measured = shares(nodes);
  for (const n of nodes) expect([n.url, Math.abs(measured.get(n.url)! - n.weight / total) < TOLERANCE]).toEqual([n.url, true]);
});

it('keeps a client on its node whatever the order the nodes are listed in', () => {
  const nodes = [node('a', 2), node('b'), node('c')];
  const reversed = [...nodes].reverse();
  expect(CLIENTS.filter((client) => place(client, reversed) !== place(client, nodes))).toEqual([]);
});

it("moves only the leaving node's clients when a node leaves", () => {
  const nodes = [node('a', 2), node('b'), node('c'), node('d')];
  const without = nodes.filter((n) => n.url !== node('c').url);
  let moved = 0;
  let strayed = 0;
  for (const client of CLIENTS) {
    const before = place(client, nodes);
    const after = place(client, without);
    if (before === node('c').url) moved += 1;
    else if (after !== before) strayed += 1;
  }
  expect(strayed).toBe(0);
  // c's share was 1/5: that and nothing more moved.
  expect(Math.abs(moved / CLIENTS.length - 0.2)).toBeLessThan(TOLERANCE);
});

it("moves only the joining node's share to it when a node joins, and from every node alike", () => {
  const nodes = [node('a'), node('b'), node('c')];
  const joined = [...nodes, node('e', 3)];
  const movedFrom = new Map<string, number>();
  let moved = 0;
  let strayed = 0;
  for (const client of CLIENTS) {
    const before = place(client, nodes);
    const after = place(client, joined);
    if (after === before) continue;
    if (after !== node('e').url) strayed += 1; // nobody moves between the old nodes
    moved += 1;
    movedFrom.set(before, (movedFrom.get(before) ?? 0) + 1);
  }
  expect(strayed).toBe(0);
  expect(Math.abs(moved / CLIENTS.length - 3 / 6)).toBeLessThan(TOLERANCE);
  for (const n of nodes) expect(Math.abs(movedFrom.get(n.url)! / CLIENTS.length - 1 / 6)).toBeLessThan(TOLERANCE);
});

it('moves only the share a changed weight gives or takes', () => {
  const nodes = [node('a'), node('b'), node('c')];
  const heavier = [node('a', 2), node('b'), node('c')];
  let moved = 0;
  let strayed = 0;
  for (const client of CLIENTS) {
    const before = place(client, nodes);
    const after = place(client, heavier);
    if (after === before) continue;
    if (after !== node('a').url) strayed += 1;
    moved += 1;
  }
  expect(strayed).toBe(0);
  // a goes from 1/3 to 1/2 of the clients: 1/6 move, all to a.
  expect(Math.abs(moved / CLIENTS.length - 1 / 6)).toBeLessThan(TOLERANCE);
});

it('skips nodes without weight and answers nothing for no nodes', () => {
  expect(place('10.0.0.1', [node('a', 0), node('b')])).toBe(node('b').url);
  expect(
    rendezvousPick(
      '10.0.0.1',
      [] as Node[],
      (n) => n.url,
      (n) => n.weight,
    ),
  ).toBeUndefined();
});
