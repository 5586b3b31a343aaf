// The runtime, node and transaction-material routes against sidecar's final line,
// 20.14.1, both on the same devnet: every answer sidecar gives correctly must be the
// same, field for field, at the head, by height and by hash; where sidecar fails (500s,
// a cut metadata hex) fastcar answers correctly, as docs/differences.md says.
import { Metadata, TypeRegistry } from '@polkadot/types';

import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { askBoth } from './support/sidecarCompare';
import { getJson, getReferenceJson } from '../harness/http';
import { startProxyProcess, startSidecar, type Peer } from '../harness/processes';
import { startFastcarOn } from '../harness/fastcar';

let devnet: Devnet;
let manifest: SeedManifest;
let sidecar: Peer;
let fastcar: Fastcar;

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  [sidecar, fastcar] = await Promise.all([startSidecar(devnet.wsUrl, '/runtime/spec', {}, 20), startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' })]);
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close()]);
  await devnet?.close();
});

async function both(path: string) {
  const { theirs, ours } = await askBoth(sidecar.url, fastcar.url, path);
  return { theirs, ours };
}

async function compare(path: string): Promise<unknown> {
  const { theirs, ours } = await both(path);
  expect({ path, status: ours.status }).toEqual({ path, status: theirs.status });
  expect({ path, body: ours.body }).toEqual({ path, body: theirs.body });
  return ours.body;
}

/** Where sidecar answers an error with its stack: fastcar's status and message, and never a stack. */
async function compareError(path: string, status: number, sidecarStatus = status): Promise<string> {
  const { theirs, ours } = await both(path);
  expect({ path, status: theirs.status }).toEqual({ path, status: sidecarStatus });
  expect({ path, status: ours.status }).toEqual({ path, status });
  const body = ours.body as { code: number; message: string; stack?: string };
  expect(body.code).toBe(status);
  expect(body.stack).toBeUndefined();
  if (sidecarStatus === status) expect(body.message).toBe((theirs.body as { message: string }).message);
  return body.message;
}

const hashOf = async (height: number) => ((await getJson(`${fastcar.url}/blocks/${height}/header`)).body as { hash?: string; parentHash: string }).parentHash;

describe('/runtime/spec', () => {
  it("answers as sidecar 20 at the head, by height, by hash, and at sidecar's spellings of `at`", async () => {
    const hash = await hashOf(manifest.head.number);
    for (const query of ['', '?at=0', '?at=5', `?at=${manifest.head.number - 1}`, `?at=${hash}`, '?at=', '?at=1e1', '?at=0x5&at=7'])
      await compare(`/runtime/spec${query}`);
  });

  it('refuses what sidecar refuses, with its messages and without a stack', async () => {
    for (const at of ['abc', '-1', '1.5', '0x1234', '0xzz']) await compareError(`/runtime/spec?at=${at}`, 400);
  });

  it('names the head for a height beyond it (400), where sidecar 20 answers 500 on this node', async () => {
    const message = await compareError(`/runtime/spec?at=${manifest.head.number + 1_000_000}`, 400, 500);
    expect(message).toMatch(/^Specified block number is larger than the current largest block\. The largest known block number is \d+\.$/);
  });

  it('answers a hash the node does not know with 404, where sidecar answers 500', async () => {
    const message = await compareError(`/runtime/spec?at=0x${'11'.repeat(32)}`, 404, 500);
    expect(message).toContain('No block with hash');
  });

  it('lets clients keep an answer at a finalized block, never one at the head', async () => {
    const atBlock = await getJson(`${fastcar.url}/runtime/spec?at=3`);
    expect(atBlock.headers.get('etag')).toMatch(/^"0x[0-9a-f]{64}-spec-\d+"$/);
    expect(atBlock.headers.get('cache-control')).toContain('immutable');
    const again = await fetch(`${fastcar.url}/runtime/spec?at=3`, { headers: { 'if-none-match': atBlock.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
    const head = await getJson(`${fastcar.url}/runtime/spec`);
    expect(head.headers.get('etag')).toBeNull();
    expect(head.headers.get('cache-control')).toBe('no-store');
  });

  it('costs one node call in one wave at a finalized height read before, none for the chain facts', async () => {
    await getJson(`${fastcar.url}/runtime/spec?at=4`);
    const again = await getJson(`${fastcar.url}/runtime/spec?at=4`);
    // The version at a hash is kept: the second read asks the node nothing.
    expect([again.headers.get('x-rpc-calls'), again.headers.get('x-rpc-waves')]).toEqual(['0', '0']);
    const fresh = await getJson(`${fastcar.url}/runtime/spec?at=6`);
    expect(Number(fresh.headers.get('x-rpc-calls'))).toBeLessThanOrEqual(2);
    expect(Number(fresh.headers.get('x-rpc-waves'))).toBeLessThanOrEqual(2);
  });
  it('answers a node that does not offer system_chainType (a provider method list) with chainType live, where sidecar 20 answers 500', async () => {
    const proxy = await startProxyProcess([devnet.wsUrl], { PROXY_DENY_METHODS: 'system_chainType' });
    const [behindList, theirs] = await Promise.all([
      startFastcarOn(`ws://127.0.0.1:${proxy.port}`, { FASTCAR_PREBUILD_BLOCKS: '0' }),
      startSidecar(`ws://127.0.0.1:${proxy.port}`, '/node/version', {}, 20),
    ]);
    try {
      const [listed, direct, sidecarAnswer] = await Promise.all([
        getJson(`${behindList.url}/runtime/spec?at=5`),
        getJson(`${fastcar.url}/runtime/spec?at=5`),
        getReferenceJson(`${theirs.url}/runtime/spec?at=5`),
      ]);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ ...(direct.body as object), chainType: { live: null } });
      expect((direct.body as { chainType: unknown }).chainType).not.toEqual({ live: null });
      expect(sidecarAnswer.status).toBe(500);
    } finally {
      await Promise.all([behindList.close(), theirs.stop()]);
      await proxy.stop();
    }
  }, 120_000);
});

describe('/node', () => {
  it('answers /node/version and /node/network as sidecar 20', async () => {
    await compare('/node/version');
    await compare('/node/network');
  });

  it('answers them in one wave', async () => {
    for (const path of ['/node/version', '/node/network']) {
      const answer = await getJson(fastcar.url + path);
      expect([path, answer.status, answer.headers.get('x-rpc-waves')]).toEqual([path, 200, '1']);
    }
  });
});

describe('/transaction/material', () => {
  it('answers as sidecar 20 without metadata, at the head, by height and by hash; noMeta changes nothing', async () => {
    const hash = await hashOf(manifest.head.number);
    for (const query of ['', '?noMeta=true', '?noMeta=false', '?at=2', `?at=${hash}`, '?metadata=']) await compare(`/transaction/material${query}`);
  });

  it('answers the metadata as sidecar 20, as hex and as JSON', async () => {
    await compare('/transaction/material?metadata=scale&at=3');
    await compare('/transaction/material?metadata=json&at=3');
  }, 120_000);

  it('answers versioned metadata as JSON as sidecar 20 does', async () => {
    await compare('/transaction/material/v14?at=3');
    await compare('/transaction/material/V15?at=3&metadata=json');
  }, 120_000);

  it('answers versioned metadata as hex whole, where sidecar 20 cuts it', async () => {
    const { theirs, ours } = await both('/transaction/material/v15?metadata=scale&at=3');
    const hex = (ours.body as { metadata: string }).metadata;
    expect(hex.length).toBeGreaterThan((theirs.body as { metadata: string }).metadata.length);
    // The whole metadata: it decodes, as version 15, and its magic number is there.
    expect(hex.startsWith('0x6d657461')).toBe(true);
    const metadata = new Metadata(new TypeRegistry(), hex as `0x${string}`);
    expect(metadata.version).toBe(15);
    const rest = { ...(ours.body as Record<string, unknown>), metadata: undefined };
    expect(rest).toEqual({ ...(theirs.body as Record<string, unknown>), metadata: undefined });
  }, 120_000);

  it("refuses bad metadata requests with 400 and sidecar's messages, where sidecar answers 500", async () => {
    await compareError('/transaction/material?metadata=xml', 400, 500);
    await compareError('/transaction/material/x14', 400, 500);
    await compareError('/transaction/material/v13', 400, 500);
    await compareError('/transaction/material/vx', 400);
  });
});

describe('the new families', () => {
  it('are served under /v1 and counted in the route metric by their table path', async () => {
    const v1 = await getJson(`${fastcar.url}/v1/runtime/spec?at=2`);
    const plain = await getJson(`${fastcar.url}/runtime/spec?at=2`);
    expect(v1.body).toEqual(plain.body);
    // Spelled otherwise (a trailing slash): Express's route, the same handler.
    const slash = await getJson(`${fastcar.url}/runtime/spec/?at=2`);
    expect(slash.body).toEqual(plain.body);
  });

  it('answer /rc routes with the setting they need when no relay chain node is set', async () => {
    for (const path of ['/rc/runtime/spec', '/rc/node/version', '/rc/transaction/material']) {
      const answer = await getJson(fastcar.url + path);
      expect([path, answer.status, (answer.body as { message: string }).message]).toEqual([path, 400, expect.stringContaining('relay chain node')]);
    }
  });
});
