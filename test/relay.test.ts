// Asset Hub beside its relay chain: /rc/blocks, para-inclusions, useRcBlock, /v1.
// The relay chain is real Polkadot history (harness/relayChain.ts): relay block
// 18468942 included seven parachain blocks, and its Asset Hub inclusion is re-pointed
// at a devnet block, so fastcar must find that block from the relay chain's own data.
import type { EventRecord, Header } from '@polkadot/types/interfaces';

import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import { getJson, getReferenceJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';
import { freePort, startSidecar, type Peer } from '../harness/processes';
import { RELAY_BLOCK, startRelayBeside } from '../harness/relayChain';
import { connectRpc } from '../harness/rpcClient';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { decodeRecorded } from '../harness/recordedBlocks';
import { loadPolkadotRecording, startRecordedNode, type RecordedNode, type Recording } from '../harness/recordedNode';

const NO_ASSET_HUB_BLOCK = 19772575; // twelve inclusions, none of para 1000
const NO_INCLUSIONS_BLOCK = 21157800;

let devnet: Devnet;
let manifest: SeedManifest;
let relay: RecordedNode;
let recording: Recording;
let fastcar: Fastcar;
let alone: Fastcar;
let ahBlock: { number: number; hash: string };

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  const beside = await startRelayBeside(devnet.wsUrl, manifest.blocks.transfers);
  ({ recording, node: relay, included: ahBlock } = beside);
  fastcar = await startFastcarOn(devnet.wsUrl, { FASTCAR_RELAY_URL: relay.url, FASTCAR_PREBUILD_BLOCKS: '0' });
  alone = await startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' });
}, 180_000);

afterAll(async () => {
  await fastcar?.close();
  await alone?.close();
  await relay?.close();
  await devnet?.close();
});

const hashOf = (number: number) => recording.blocks.find((block) => block.number === number)!.hash;

describe('/rc/blocks: the relay chain through the same service', () => {
  it('answers a relay block as sidecar recorded it from a live node', async () => {
    const { status, body } = await getJson(`${fastcar.url}/rc/blocks/7300000`);
    expect(status).toBe(200);
    const { finalized: _tag, ...expected } = recording.recorded['7300000'] as Record<string, unknown>;
    const { finalized: _ours, ...actual } = body as Record<string, unknown>;
    expect(actual).toEqual(expected);
  });

  it('serves the header and raw routes of the relay chain, by hash too', async () => {
    const hash = hashOf(RELAY_BLOCK);
    const header = (await getJson(`${fastcar.url}/rc/blocks/${hash}/header`)).body as { number: string };
    expect(header.number).toBe(String(RELAY_BLOCK));
    const raw = (await getJson(`${fastcar.url}/rc/blocks/${RELAY_BLOCK}/extrinsics-raw`)).body as { extrinsics: string[] };
    expect(raw.extrinsics).toEqual(recording.blocks.find((block) => block.number === RELAY_BLOCK)!.extrinsics);
  });

  it('refuses useRcBlock on the relay chain itself', async () => {
    const { status, body } = await getJson(`${fastcar.url}/rc/blocks/${RELAY_BLOCK}?useRcBlock=true`);
    expect(status).toBe(400);
    expect((body as { message: string }).message).toMatch(/parachain/);
  });
});

describe('para-inclusions', () => {
  it("lists a relay block's inclusions as sidecar reads them (header hash and number from the head data)", async () => {
    const original = loadPolkadotRecording();
    const { events, runtime } = await decodeRecorded(original, NO_ASSET_HUB_BLOCK);
    // The reference, read with polkadot.js the way sidecar reads it.
    const expected = (events as EventRecord[])
      .filter(({ event }) => event.section === 'paraInclusion' && event.method === 'CandidateIncluded')
      .map(({ event }) => {
        const receipt = event.data[0].toJSON() as { descriptor: Record<string, string | number>; commitmentsHash: string };
        const paraHeader = runtime.registry.createType('Header', event.data[1]) as Header;
        const { descriptor } = receipt;
        return {
          paraId: String(descriptor.paraId),
          paraBlockNumber: paraHeader.number.toString(),
          paraBlockHash: paraHeader.hash.toHex(),
          descriptor: {
            relayParent: descriptor.relayParent,
            persistedValidationDataHash: descriptor.persistedValidationDataHash,
            povHash: descriptor.povHash,
            erasureRoot: descriptor.erasureRoot,
            paraHead: descriptor.paraHead,
            validationCodeHash: descriptor.validationCodeHash,
          },
          commitmentsHash: receipt.commitmentsHash,
          coreIndex: event.data[2].toString(),
          groupIndex: event.data[3].toString(),
        };
      })
      .sort((a, b) => Number(a.paraId) - Number(b.paraId));
    expect(expected.length).toBe(12);
    const { status, body } = await getJson(`${fastcar.url}/rc/blocks/${NO_ASSET_HUB_BLOCK}/para-inclusions`);
    expect(status).toBe(200);
    expect(body).toEqual({ at: { hash: hashOf(NO_ASSET_HUB_BLOCK), height: String(NO_ASSET_HUB_BLOCK) }, inclusions: expected });
    const one = (await getJson(`${fastcar.url}/rc/blocks/${NO_ASSET_HUB_BLOCK}/para-inclusions?paraId=2034`)).body as { inclusions: { paraId: string }[] };
    expect(one.inclusions.map((inclusion) => inclusion.paraId)).toEqual(['2034']);
  });

  it('answers 400 for a block without inclusions, and on a chain without parachains', async () => {
    const relayBlock = await getJson(`${fastcar.url}/rc/blocks/${NO_INCLUSIONS_BLOCK}/para-inclusions`);
    expect(relayBlock.status).toBe(400);
    expect((relayBlock.body as { message: string }).message).toBe(`Block ${NO_INCLUSIONS_BLOCK} on chain polkadot doesn't have the paraInclusion event`);
    const parachain = await getJson(`${fastcar.url}/blocks/3/para-inclusions`);
    expect(parachain.status).toBe(400);
  });
});

describe('useRcBlock', () => {
  it('answers the Asset Hub blocks a relay block included, each with the relay block it came with', async () => {
    const own = (await getJson(`${fastcar.url}/blocks/${ahBlock.number}`)).body as Record<string, unknown>;
    const rpc = await connectRpc(devnet.wsUrl);
    const now = await rpc.call<string>('state_getStorage', ['0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb', ahBlock.hash]);
    rpc.close();
    const ahTimestamp = Buffer.from(now.slice(2), 'hex').readBigUInt64LE().toString();
    const rcBlockHash = hashOf(RELAY_BLOCK);
    const byNumber = await getJson(`${fastcar.url}/blocks/${RELAY_BLOCK}?useRcBlock=true`);
    expect(byNumber.status).toBe(200);
    expect(byNumber.body).toEqual([{ ...own, rcBlockHash, rcBlockNumber: String(RELAY_BLOCK), ahTimestamp }]);
    const byHash = await getJson(`${fastcar.url}/blocks/${rcBlockHash}?useRcBlock=true&useRcBlockFormat=object`);
    const relayHeader = recording.blocks.find((block) => block.number === RELAY_BLOCK)!.header;
    expect(byHash.body).toEqual({
      rcBlock: { hash: rcBlockHash, parentHash: relayHeader.parentHash, number: String(RELAY_BLOCK) },
      parachainDataPerBlock: [{ ...own, rcBlockHash, rcBlockNumber: String(RELAY_BLOCK), ahTimestamp }],
    });
    expect(byNumber.headers.get('cache-control')).toBe('no-store');
  });

  it('serves the header, extrinsic, raw and range routes by relay block too', async () => {
    const rc = { rcBlockHash: hashOf(RELAY_BLOCK), rcBlockNumber: String(RELAY_BLOCK) };
    const withRc = (body: unknown) => [expect.objectContaining({ ...(body as object), ...rc, ahTimestamp: expect.stringMatching(/^\d+$/) })];
    for (const suffix of ['/header', '/extrinsics/1', '/extrinsics-raw']) {
      const own = (await getJson(`${fastcar.url}/blocks/${ahBlock.hash}${suffix}`)).body;
      const viaRelay = await getJson(`${fastcar.url}/blocks/${RELAY_BLOCK}${suffix}?useRcBlock=true`);
      expect([suffix, viaRelay.status]).toEqual([suffix, 200]);
      expect(viaRelay.body).toEqual(withRc(own));
    }
    const block = (await getJson(`${fastcar.url}/blocks/${ahBlock.number}`)).body as { hash: string };
    const range = (await getJson(`${fastcar.url}/blocks?range=${RELAY_BLOCK}-${RELAY_BLOCK + 1}&useRcBlock=true`)).body as { hash: string }[];
    expect(range.map((item) => item.hash)).toEqual([block.hash]);
    expect(range[0]).toEqual(expect.objectContaining(rc));
  });

  it("reads the relay chain's head for the head routes", async () => {
    // The relay head (the newest block the relay node has) included no parachain block.
    expect((await getJson(`${fastcar.url}/blocks/head?useRcBlock=true`)).body).toEqual([]);
    const object = (await getJson(`${fastcar.url}/blocks/head/header?useRcBlock=true&useRcBlockFormat=object`)).body as { rcBlock: { number: string } };
    const newest = Math.max(...recording.blocks.map((block) => block.number));
    expect(object).toEqual({ rcBlock: expect.objectContaining({ number: String(newest) }), parachainDataPerBlock: [] });
  });

  it('answers an empty list (or an empty object form) when the relay block included none', async () => {
    expect((await getJson(`${fastcar.url}/blocks/${NO_ASSET_HUB_BLOCK}?useRcBlock=true`)).body).toEqual([]);
    const object = (await getJson(`${fastcar.url}/blocks/${NO_ASSET_HUB_BLOCK}?useRcBlock=true&useRcBlockFormat=object`)).body as {
      parachainDataPerBlock: unknown[];
    };
    expect(object.parachainDataPerBlock).toEqual([]);
  });

  it('rejects malformed or unsupported uses with a 400 that says why', async () => {
    const cases: [string, RegExp][] = [
      [`/blocks/${RELAY_BLOCK}?useRcBlock=yes`, /invalid boolean/],
      [`/blocks/${RELAY_BLOCK}?useRcBlockFormat=object`, /requires useRcBlock=true/],
      [`/blocks/${RELAY_BLOCK}?useRcBlock=true&useRcBlockFormat=table`, /"array" or "object"/],
      [`/blocks/${RELAY_BLOCK}/para-inclusions?useRcBlock=true`, /relay chain block already/],
      [`/blocks?range=${RELAY_BLOCK}-${RELAY_BLOCK + 1}&useRcBlock=true&useRcBlockFormat=object`, /one list/],
      [`/blocks/${'9'.repeat(12)}?useRcBlock=true`, /too large/],
    ];
    for (const [path, message] of cases) {
      const { status, body } = await getJson(fastcar.url + path);
      expect([path, status, (body as { message: string }).message]).toEqual([path, 400, expect.stringMatching(message)]);
    }
  });

  it('without a relay node, names the setting that is missing', async () => {
    for (const path of [`/blocks/${RELAY_BLOCK}?useRcBlock=true`, '/rc/blocks/1', '/rc/blocks/head/header', '/v1/rc/blocks/1']) {
      const { status, body } = await getJson(alone.url + path);
      expect([path, status, (body as { message: string }).message]).toEqual([path, 400, expect.stringContaining('FASTCAR_RELAY_URL')]);
    }
  });
});

describe('/v1: the routes as polkadot-rest-api names them', () => {
  it('answers useEvmFormat on a block without revive calls byte for byte as without it', async () => {
    const plain = await getJson(`${fastcar.url}/blocks/${ahBlock.number}`);
    const evm = await getJson(`${fastcar.url}/blocks/${ahBlock.number}?useEvmFormat=true`);
    expect(evm.text).toBe(plain.text);
    expect(evm.headers.get('etag')).not.toBe(plain.headers.get('etag'));
  });

  it('serves the same answers under /v1', async () => {
    for (const path of [`/blocks/${ahBlock.number}`, `/blocks/${ahBlock.number}/header`, `/rc/blocks/${NO_ASSET_HUB_BLOCK}/para-inclusions`]) {
      const plain = await getJson(fastcar.url + path);
      const versioned = await getJson(`${fastcar.url}/v1${path}`);
      expect([path, versioned.status, versioned.text]).toEqual([path, 200, plain.text]);
    }
  });
});

describe('relay-side XCM, against sidecar 18 on real Polkadot relay blocks', () => {
  let polkadot: RecordedNode;
  let sidecar: Peer;
  let ours: Fastcar;

  beforeAll(async () => {
    polkadot = await startRecordedNode(loadPolkadotRecording());
    // Sidecar's usual readiness probe asks for the genesis header, which the recording lacks.
    [sidecar, ours] = await Promise.all([
      startSidecar(polkadot.url, `/blocks/${RELAY_BLOCK}/header`),
      startFastcarOn(polkadot.url, { FASTCAR_PREBUILD_BLOCKS: '0' }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([sidecar?.stop(), ours?.close()]);
    await polkadot?.close();
  });

  it.each([RELAY_BLOCK, NO_ASSET_HUB_BLOCK])(
    'block %i: the upward and horizontal messages of its backed candidates, and the whole block, as sidecar reads them',
    async (number) => {
      for (const query of ['decodedXcmMsgs=true&noFees=true', 'decodedXcmMsgs=true&paraId=2034&noFees=true']) {
        const path = `/blocks/${number}?${query}`;
        const [theirs, mine] = await Promise.all([getReferenceJson(sidecar.url + path), getJson(ours.url + path)]);
        expect([path, mine.status]).toEqual([path, theirs.status]);
        expect(mine.body).toEqual(theirs.body);
      }
      const all = (await getJson(`${ours.url}/blocks/${number}?decodedXcmMsgs=true&noFees=true`)).body as {
        decodedXcmMsgs: { upwardMessages: unknown[]; horizontalMessages: unknown[] };
      };
      expect(all.decodedXcmMsgs.upwardMessages.length + all.decodedXcmMsgs.horizontalMessages.length).toBeGreaterThan(0);
      expect(polkadot.gaps).toEqual([]);
    },
  );
});

describe('a relay node that is not there at start', () => {
  it('starts without it after a short wait, answers 503 for the relay chain, and recovers when the relay node comes', async () => {
    const port = await freePort();
    const started = Date.now();
    const late = await startFastcarOn(devnet.wsUrl, { FASTCAR_RELAY_URL: `ws://127.0.0.1:${port}`, FASTCAR_PREBUILD_BLOCKS: '0' });
    let lateRelay: RecordedNode | undefined;
    try {
      expect(Date.now() - started).toBeLessThan(30_000);
      expect((await getJson(`${late.url}/blocks/${ahBlock.number}/header`)).status).toBe(200);
      for (const path of ['/rc/blocks/7300000/header', `/blocks/${RELAY_BLOCK}?useRcBlock=true`]) {
        const { status, headers } = await getJson(late.url + path);
        expect([path, status, headers.get('retry-after')]).toEqual([path, 503, expect.stringMatching(/^\d+$/)]);
      }
      lateRelay = await startRecordedNode(recording, port);
      let status = 0;
      for (let i = 0; i < 60 && status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        status = (await getJson(`${late.url}/rc/blocks/7300000/header`)).status;
      }
      expect(status).toBe(200);
      expect(((await getJson(`${late.url}/blocks/${RELAY_BLOCK}?useRcBlock=true`)).body as unknown[]).length).toBe(1);
    } finally {
      await late.close();
      await lateRelay?.close();
    }
  }, 90_000);
});
