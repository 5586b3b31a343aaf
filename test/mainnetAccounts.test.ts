// Balances, transaction material and runtime specs at real Polkadot blocks, offline:
// fastcar on the replay node (test/support/recordedNode.ts) with the accounts additions
// (test/fixtures/mainnet/polkadot-accounts.json) must give the answers sidecar recorded
// from live nodes, and, where no live answer was recorded, sidecar 20's on the same node.
import { getJson, getReferenceJson } from '../harness/http';
import { startFastcarOn } from '../harness/fastcar';
import { startSidecar, type Peer } from '../harness/processes';
import type { Fastcar } from '../src/server';
import { loadAccountsRecording, withAccounts } from './support/recordedAccounts';
import { loadPolkadotRecording, startRecordedNode, type RecordedNode, type Recording } from '../harness/recordedNode';

const accounts = loadAccountsRecording();
const recording: Recording = withAccounts(loadPolkadotRecording(), accounts);

let node: RecordedNode;
let sidecarNode: RecordedNode;
let fastcar: Fastcar;
let sidecar: Peer;

beforeAll(async () => {
  [node, sidecarNode] = await Promise.all([startRecordedNode(recording), startRecordedNode(recording)]);
  fastcar = await startFastcarOn(node.url, { FASTCAR_PREBUILD_BLOCKS: '0' });
  // Sidecar reads a block's height from its header: it can only be asked at blocks recorded whole.
  sidecar = await startSidecar(sidecarNode.url, '/transaction/material?at=789629&noMeta=true', {}, 20);
}, 240_000);

afterAll(async () => {
  await sidecar?.stop();
  await fastcar?.close();
  await Promise.all([node?.close(), sidecarNode?.close()]);
});

/** Sidecar 20's fields, in its order. */
const BALANCE_FIELDS = ['at', 'nonce', 'tokenSymbol', 'free', 'reserved', 'miscFrozen', 'feeFrozen', 'frozen', 'transferable', 'locks'];
const NO_TRANSFERABLE = 'transferable formula not supported for this runtime';

const runtimeOf = (hash: string) => {
  const block = recording.blocks.find((one) => one.hash === hash) ?? recording.stateBlocks?.find((one) => one.hash === hash);
  if (!block) throw new Error(`${hash} is not recorded`);
  return recording.runtimes[block.runtime];
};

/** Both services' answers to the same path. */
async function both(path: string) {
  const [ours, theirs] = await Promise.all([getJson(fastcar.url + path), getReferenceJson(sidecar.url + path)]);
  return { ours, theirs };
}

describe('balance-info, as sidecar recorded it from live Polkadot nodes', () => {
  it.each(accounts.balanceInfo.map((entry) => [entry.path, entry] as const))('%s', async (path, entry) => {
    // Recorded before sidecar had `transferable`: sidecar 20 adds the text below for every runtime without `frozen`.
    const expected = { transferable: NO_TRANSFERABLE, ...entry.expected };
    const { status, body } = await getJson(fastcar.url + path);
    expect([status, body]).toEqual([200, expected]);
    expect(Object.keys(body as object)).toEqual(BALANCE_FIELDS);
  });

  it('by hash as by height, where the block was recorded whole', async () => {
    const entry = accounts.balanceInfo.find((one) => recording.blocks.some((block) => block.hash === one.expected.at.hash));
    if (!entry) throw new Error('no balance at a whole block');
    const byHash = await getJson(`${fastcar.url}${entry.path.replace(/at=\d+/, `at=${entry.expected.at.hash}`)}`);
    expect([byHash.status, byHash.body]).toEqual([200, entry.expected]);
  });
});

describe('balance-info where no live answer was recorded: as sidecar 20 answers on the same node', () => {
  const whole = accounts.balanceInfo.filter((entry) => recording.blocks.some((block) => block.hash === entry.expected.at.hash));

  it.each(whole.flatMap((entry) => [`${entry.path}&denominated=true`, `${entry.path}&token=DOT`, `${entry.path}&denominated=true&token=DOT`]))(
    '%s',
    async (path) => {
      const { ours, theirs } = await both(path);
      expect([ours.status, ours.body]).toEqual([200, theirs.body]);
    },
  );

  // No Polkadot balance after `frozen` came in (runtime 9420) was recorded: these values are made up, at real runtimes.
  it.each(accounts.frozenEra.map((entry) => [entry.path, entry] as const))('frozen and transferable: %s', async (path, entry) => {
    for (const query of ['', '&denominated=true']) {
      const { ours, theirs } = await both(path + query);
      expect([ours.status, ours.body]).toEqual([200, theirs.body]);
    }
    const { body } = await getJson(fastcar.url + path);
    const answer = body as Record<string, unknown>;
    expect([answer.transferable, answer.miscFrozen, Object.keys(answer)]).toEqual([
      entry.transferable,
      'miscFrozen does not exist for this runtime',
      BALANCE_FIELDS,
    ]);
  });
});

describe('runtime/spec', () => {
  it.each(accounts.runtimeSpec.map((entry) => [entry.path, entry] as const))('%s as sidecar recorded it', async (path, entry) => {
    const { status, body } = await getJson(fastcar.url + path);
    expect([status, body]).toEqual([200, entry.expected]);
    expect(Object.keys(body as object)).toEqual(Object.keys(entry.expected));
  });

  it('at a block of each recorded runtime, as sidecar 20 answers', async () => {
    for (const block of recording.blocks) {
      const { ours, theirs } = await both(`/runtime/spec?at=${block.number}`);
      expect([block.number, ours.status, ours.body]).toEqual([block.number, 200, theirs.body]);
    }
  });
});

describe('transaction material', () => {
  /** What the recording says of the block: its identity and its runtime's version (transaction versions from the runtimes' source). */
  const recordedMaterial = (number: number, hash: string) => {
    const { version } = runtimeOf(hash);
    return {
      at: { hash, height: String(number) },
      genesisHash: recording.genesisHash,
      chainName: recording.chain,
      specName: version.specName,
      specVersion: String(version.specVersion),
      txVersion: String(accounts.runtimeVersions[String(version.specVersion)].transactionVersion),
    };
  };
  const everyBlock = [...recording.blocks, ...(recording.stateBlocks ?? [])];
  /** One whole block of each runtime whose own metadata was recorded. */
  const ownMetadata = recording.blocks
    .filter((block) => !recording.runtimes[block.runtime].borrowed)
    .filter(
      (block, i, all) => all.findIndex((other) => recording.runtimes[other.runtime].metadataFrom === recording.runtimes[block.runtime].metadataFrom) === i,
    );

  it('noMeta, at every recorded block, by height: the recorded block, chain and runtime', async () => {
    for (const block of everyBlock) {
      const { status, body } = await getJson(`${fastcar.url}/transaction/material?at=${block.number}&noMeta=true`);
      expect([block.number, status, body]).toEqual([block.number, 200, recordedMaterial(block.number, block.hash)]);
    }
  });

  it('at every block recorded whole, by hash, as sidecar 20 answers', async () => {
    for (const block of recording.blocks) {
      const { ours, theirs } = await both(`/transaction/material?at=${block.hash}`);
      expect([block.number, ours.status, ours.body]).toEqual([block.number, 200, theirs.body]);
      expect(ours.body).toEqual(recordedMaterial(block.number, block.hash));
    }
  });

  it('metadata=scale is the recorded metadata, for each runtime recorded with its own', async () => {
    expect(ownMetadata.map((block) => recording.runtimes[block.runtime].version.specVersion)).toEqual([16, 29, 9110, 1000001, 1002000, 1003000]);
    for (const block of ownMetadata) {
      const { ours, theirs } = await both(`/transaction/material?at=${block.number}&metadata=scale`);
      expect([block.number, ours.status]).toEqual([block.number, 200]);
      expect((ours.body as { metadata: string }).metadata === recording.metadata[recording.runtimes[block.runtime].metadataFrom]).toBe(true);
      expect(ours.text === theirs.text).toBe(true);
    }
  });

  it("metadata=json is the recorded metadata's JSON, of its own version, as sidecar 20 writes it", async () => {
    for (const block of ownMetadata) {
      const { metadataVersion } = recording.runtimes[block.runtime];
      const { ours, theirs } = await both(`/transaction/material?at=${block.number}&metadata=json`);
      const metadata = (
        ours.body as { metadata: { magicNumber: string; metadata: Record<string, { pallets?: { name: string }[]; modules?: { name: string }[] }> } }
      ).metadata;
      expect([block.number, ours.status, metadata.magicNumber, Object.keys(metadata.metadata)]).toEqual([
        block.number,
        200,
        '1635018093',
        [`v${metadataVersion}`],
      ]);
      const modules = metadata.metadata[`v${metadataVersion}`][metadataVersion >= 14 ? 'pallets' : 'modules'] ?? [];
      expect(modules.map((module) => module.name)).toEqual(expect.arrayContaining(['System', 'Balances', 'TransactionPayment']));
      expect(ours.text === theirs.text).toBe(true);
    }
  });

  it('metadata older than v14: renamed in material as polkadot.js names its types, as stored in /runtime/metadata, as sidecar 20 writes each', async () => {
    const old = ownMetadata.filter((block) => recording.runtimes[block.runtime].metadataVersion < 14);
    expect(old.map((block) => block.number)).toEqual([789629, 4392619]);
    for (const block of old) {
      const material = await both(`/transaction/material?at=${block.number}&metadata=json`);
      const metadata = await both(`/runtime/metadata?at=${block.number}`);
      expect([material.ours.text.includes('"BabeEquivocationProof"'), metadata.ours.text.includes('"BabeEquivocationProof"')]).toEqual([true, false]);
      expect([material.ours.text === material.theirs.text, metadata.ours.text === metadata.theirs.text]).toEqual([true, true]);
    }
  });

  it('/transaction/material/v14: the v14 metadata where the runtime offers versions, a 400 where its Metadata API is older', async () => {
    for (const block of ownMetadata) {
      const offersVersions = recording.runtimes[block.runtime].version.apis.some(([id, version]) => id === '0x37e397fc7c91f5e4' && version >= 2);
      const { ours, theirs } = await both(`/transaction/material/v14?at=${block.number}`);
      if (offersVersions) {
        expect([block.number, ours.status]).toEqual([block.number, 200]);
        expect(ours.text === theirs.text).toBe(true);
        const plain = await getJson(`${fastcar.url}/transaction/material?at=${block.number}&metadata=json`);
        expect(ours.text === plain.text).toBe(true);
      } else {
        // Sidecar 20 answers these with a 500 and its stack.
        expect([block.number, ours.status, ours.body]).toEqual([
          block.number,
          400,
          { code: 400, message: 'The runtime at this block offers no metadata versions (its Metadata API is older than version 2).' },
        ]);
        expect(theirs.status).toBe(500);
      }
    }
  });
});

// Last: every call fastcar made above had a recorded answer.
it('asked only for what the recording holds', () => {
  expect(node.gaps).toEqual([]);
});
