// Thousands of random and hostile paths and query strings: no 5xx, every
// answer JSON with a message, and the process still serving afterwards.
// The generator is seeded, so a failure names a reproducible input.
import type { Devnet } from '../devnet/chain';
import { startRelayDevnet, type RelayDevnet } from '../devnet/relayChain';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { startFastcarOn } from '../harness/fastcar';

let devnet: Devnet;
let relay: RelayDevnet;
let fastcar: Fastcar;

beforeAll(async () => {
  [{ devnet }, relay] = await Promise.all([startDevnet(), startRelayDevnet({ port: 0 })]);
  fastcar = await startFastcarOn(devnet.wsUrl, { FASTCAR_RELAY_URL: relay.wsUrl });
}, 120_000);

afterAll(async () => {
  await fastcar?.close();
  await Promise.all([devnet?.close(), relay?.close()]);
});

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const random = prng(20261122);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const hex = (bytes: number) => Array.from({ length: bytes * 2 }, () => pick([...'0123456789abcdef'])).join('');

const ids = [
  () => String(Math.floor(random() * 300)),
  () => String(-Math.floor(random() * 1000)),
  () => '9'.repeat(1 + Math.floor(random() * 40)),
  () => `0x${hex(Math.floor(random() * 40))}`,
  () => `0x${hex(32)}`,
  () => `0x${hex(31)}zz`,
  () => '1e309',
  () => encodeURIComponent('ブロック'),
  () => '..%2F..%2F..%2Fetc%2Fpasswd',
  () => '%00',
  () => '%E0%A4%A',
  () => 'head',
  () => `${Math.floor(random() * 20)}.5`,
  () => '',
];
const suffixes = [
  '',
  '/header',
  '/para-inclusions',
  '/extrinsics/0',
  `/extrinsics/${Math.floor(random() * 1000)}`,
  '/extrinsics/-1',
  '/extrinsics/x',
  '/extrinsics-raw',
  '/../..',
  '/%2e%2e',
];
const queries = [
  () => '',
  () => '?noFees=true',
  () => '?noFee=false&eventDocs=true',
  () => '?noFees=maybe',
  () => '?finalized=false',
  () => '?noFees=true&noFees=false',
  () => `?range=${Math.floor(random() * 1e9)}-${Math.floor(random() * 1e9)}`,
  () => '?range=0-1000000000',
  () => `?${encodeURIComponent('ü')}=${hex(4)}`,
  () => `?x=${'a'.repeat(Math.floor(random() * 200_000))}`,
  () => '?__proto__[polluted]=1',
  () => '?eventDocs[]=true',
  () => '?useRcBlock=true',
  () => '?useRcBlock=true&useRcBlockFormat=object',
  () => `?useRcBlockFormat=${hex(3)}`,
  () => '?useEvmFormat=true',
];
// Sidecar's paths, polkadot-rest-api's, and the relay chain's (the devnet's relay chain beside it).
const prefixes = ['', '', '/v1', '/rc', '/v1/rc'];

function randomPath(): string {
  const prefix = pick(prefixes);
  if (random() < 0.1) return `${prefix}/blocks${pick(queries)()}`;
  return `${prefix}/blocks/${pick(ids)()}${pick(suffixes)}${pick(queries)()}`;
}

it('answers 3000 hostile requests without a 5xx, always with a JSON message', async () => {
  const paths = Array.from({ length: 3000 }, randomPath);
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < paths.length) {
        const path = paths[next++];
        const response = await fetch(fastcar.url + path);
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          failures.push(`${path.slice(0, 120)}: not JSON`);
          continue;
        }
        if (response.status >= 500) failures.push(`${path.slice(0, 120)}: ${response.status}`);
        if (response.status >= 400 && typeof (body as { message?: unknown }).message !== 'string') failures.push(`${path.slice(0, 120)}: no message`);
        if (/\.ts:\d+|\.js:\d+|node_modules/.test(text)) failures.push(`${path.slice(0, 120)}: leaks a path`);
      }
    }),
  );
  console.log(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  expect(failures.slice(0, 20)).toEqual([]);
  expect((await fetch(`${fastcar.url}/blocks/1/header`)).status).toBe(200);
}, 300_000);

it('answers a burst of random block hashes with 404s, and the chain behind keeps serving', async () => {
  // 64 at once, on every route that takes a hash: each costs the node a lookup that finds nothing.
  const routes = ['', '/header', '/extrinsics-raw', '/extrinsics/0', '/para-inclusions'];
  const paths = Array.from({ length: 64 }, (_, i) => `${i % 2 ? '/rc' : ''}/blocks/0x${hex(32)}${routes[i % routes.length]}`);
  const answers = await Promise.all(paths.map(async (path) => ({ path, status: (await fetch(fastcar.url + path)).status })));
  expect(answers.filter(({ status }) => status !== 404)).toEqual([]);
  const header = (await (await fetch(`${fastcar.url}/blocks/2/header`)).json()) as { number: string };
  expect(header.number).toBe('2');
  const relayHeader = (await (await fetch(`${fastcar.url}/rc/blocks/2/header`)).json()) as { number: string };
  expect(relayHeader.number).toBe('2');
}, 120_000);
