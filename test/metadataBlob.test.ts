// POST /transaction/metadata-blob (RFC-78, for hardware signers) on the devnet: the
// metadata hash equals the merkle root computed here, apart from fastcar, from the V15
// metadata the node gives; the proof decodes, names this runtime and carries the types
// of the transaction; a runtime already seen costs at most one node call; bad bodies are
// refused before the node is asked. Answers equal sidecar 20's at the same block.
// (A transfer signed with CheckMetadataHash's mode 1 cannot prove more here: the devnet's
// runtime was built without its metadata hash, and refuses mode 1 as `cannotLookup`.)
import { execFileSync } from 'node:child_process';
import { u8aToHex } from '@polkadot/util';

import type { Devnet } from '../devnet/chain';
import { startFastcarOn } from '../harness/fastcar';
import { startSidecar, type Peer } from '../harness/processes';
import type { Fastcar } from '../src/server';
import { startDevnet } from './support/devnet';
import { devnetSigner, type Signer } from './support/signer';

const UNIT = 10n ** 12n;

let devnet: Devnet;
let signer: Signer;
let sidecar: Peer;
let fastcar: Fastcar;

beforeAll(async () => {
  ({ devnet } = await startDevnet());
  [signer, sidecar, fastcar] = await Promise.all([
    devnetSigner(devnet.wsUrl),
    startSidecar(devnet.wsUrl, '/runtime/spec', {}, 20),
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' }),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all([sidecar?.stop(), fastcar?.close(), signer?.close()]);
  await devnet?.close();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
  calls: number;
}

async function post(base: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${base}/transaction/metadata-blob`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, calls: Number(response.headers.get('x-rpc-calls') ?? NaN) };
}

interface Merkleized {
  digest: string;
  proof: { leaves: number; leafIdxs: number[]; proofs: number; info: Record<string, unknown>; signedExtensions: string[] };
}

/**
 * The library run as plain Node (it is an ES module only, which Jest's sandbox cannot load): the digest of
 * `metadata` and the decoding of `blob`.
 */
function merkleizedApart(metadata: string, decimals: number, tokenSymbol: string, blob: string): Merkleized {
  const script = `
    const { merkleizeMetadata, proof } = await import('@polkadot-api/merkleize-metadata');
    const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    const tree = merkleizeMetadata(input.metadata, { decimals: input.decimals, tokenSymbol: input.tokenSymbol });
    const decoded = proof.dec(input.blob);
    process.stdout.write(JSON.stringify({
      digest: '0x' + Buffer.from(tree.digest()).toString('hex'),
      proof: {
        leaves: decoded.leaves.length,
        leafIdxs: decoded.leafIdxs,
        proofs: decoded.proofs.length,
        info: decoded.info,
        signedExtensions: decoded.extrinsic.signedExtensions.map((e) => e.identifier),
      },
    }));
  `;
  const wrapped = `const { createRequire } = await import('node:module'); const require = createRequire(process.cwd() + '/'); ${script}`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', wrapped], { input: JSON.stringify({ metadata, decimals, tokenSymbol, blob }) });
  return JSON.parse(out.toString()) as Merkleized;
}

/**
 * A signed (v4, sr25519, immortal) extrinsic taken apart as a signer holds it: the call, the extensions'
 * extra (between the signature and the call) and their additional signed data, as this runtime's extensions name it.
 */
function partsOf(tx: `0x${string}`): { callData: string; includedInExtrinsic: string; includedInSignedData: string } {
  const { api } = signer;
  const extrinsic = api.createType('Extrinsic', tx);
  const call = extrinsic.method.toU8a();
  const body = extrinsic.toU8a(true);
  // Version byte, MultiAddress::Id (1 + 32), MultiSignature::Sr25519 (1 + 64).
  const extra = body.slice(1 + 33 + 65, body.length - call.length);
  const genesis = api.genesisHash.toU8a();
  const additional: Record<string, Uint8Array> = {
    CheckSpecVersion: api.createType('u32', api.runtimeVersion.specVersion).toU8a(),
    CheckTxVersion: api.createType('u32', api.runtimeVersion.transactionVersion).toU8a(),
    CheckGenesis: genesis,
    CheckMortality: genesis,
    CheckEra: genesis,
    CheckMetadataHash: new Uint8Array([0]),
  };
  const identifiers = api.registry.signedExtensions;
  const signed = Buffer.concat(identifiers.map((id) => additional[id] ?? new Uint8Array()));
  return { callData: u8aToHex(call), includedInExtrinsic: u8aToHex(extra), includedInSignedData: u8aToHex(signed) };
}

describe('POST /transaction/metadata-blob', () => {
  let transfer: `0x${string}`;
  let first: Answer;

  beforeAll(async () => {
    transfer = await signer.transfer(2n * UNIT);
    first = await post(fastcar.url, { tx: transfer });
  });

  test("the metadata hash is the merkle root of the runtime's V15 metadata, and the proof decodes to this runtime's types", async () => {
    expect(first.status).toBe(200);
    const { api } = signer;
    const at = first.body.at as { hash: string; height: string };
    // Sidecar 20 at the same block: the same answer, field for field.
    const theirs = await post(sidecar.url, { tx: transfer, at: at.hash });
    expect(theirs.status).toBe(200);
    expect(JSON.stringify(first.body)).toBe(JSON.stringify(theirs.body));

    // The chain's properties as polkadot.js read them from the node.
    const decimals = api.registry.chainDecimals[0];
    const tokenSymbol = api.registry.chainTokens[0];
    expect([first.body.decimals, first.body.tokenSymbol]).toEqual([String(decimals), tokenSymbol]);
    const v15 = (await (await api.at(at.hash)).call.metadata.metadataAtVersion(15)).unwrap().toHex();
    expect(Object.keys(first.body)).toEqual(['at', 'metadataHash', 'metadataBlob', 'specVersion', 'specName', 'base58Prefix', 'decimals', 'tokenSymbol']);

    const apart = merkleizedApart(v15, decimals, tokenSymbol, first.body.metadataBlob as string);
    expect(first.body.metadataHash).toBe(apart.digest);
    expect(first.body.metadataHash).toMatch(/^0x[0-9a-f]{64}$/);
    // The types a balances transfer uses, each proven against the root.
    expect(apart.proof.leaves).toBeGreaterThan(3);
    expect(apart.proof.leafIdxs).toHaveLength(apart.proof.leaves);
    expect(apart.proof.proofs).toBeGreaterThan(0);
    expect(apart.proof.info).toEqual({
      specVersion: Number(first.body.specVersion),
      specName: first.body.specName,
      base58Prefix: Number(first.body.base58Prefix),
      decimals,
      tokenSymbol,
    });
    const extensions = api.registry.signedExtensions;
    expect(apart.proof.signedExtensions).toEqual(extensions);
  });

  test('a runtime already seen: its tree is kept, a request costs at most one node call; the parts, or the additional signed data, as sidecar', async () => {
    const again = await post(fastcar.url, { tx: await signer.remark(4) });
    expect(again.status).toBe(200);
    expect(again.calls).toBeLessThanOrEqual(1);
    expect(again.body.metadataHash).toBe(first.body.metadataHash);
    expect(again.body.metadataBlob).not.toBe(first.body.metadataBlob);

    const parts = await post(fastcar.url, { ...partsOf(transfer), at: (first.body.at as { height: string }).height });
    expect(parts.status).toBe(200);
    expect(parts.calls).toBeLessThanOrEqual(1);
    expect(parts.body.metadataHash).toBe(first.body.metadataHash);
    expect(parts.body.at).toEqual(first.body.at);
    const theirs = await post(sidecar.url, { ...partsOf(transfer), at: (first.body.at as { hash: string }).hash });
    expect(JSON.stringify(parts.body)).toBe(JSON.stringify(theirs.body));

    // The extrinsic with its additional signed data: the proof covers those types too, as sidecar's.
    const withSigned = { tx: transfer, txAdditionalSigned: partsOf(transfer).includedInSignedData, at: (first.body.at as { hash: string }).hash };
    const [ours, sidecars] = await Promise.all([post(fastcar.url, withSigned), post(sidecar.url, withSigned)]);
    expect(ours.status).toBe(200);
    expect(ours.calls).toBeLessThanOrEqual(1);
    expect(ours.body.metadataBlob).not.toBe(first.body.metadataBlob);
    expect(JSON.stringify(ours.body)).toBe(JSON.stringify(sidecars.body));
  });

  test.each([
    ['an empty object', {}, /Missing field `tx` or `callData`/],
    ['not an object', '[1]', /must be a JSON object/],
    ['tx not hex', { tx: 'abc' }, /`tx` must be a 0x-prefixed hex/],
    ['tx of half a byte', { tx: '0x123' }, /`tx` must be a 0x-prefixed hex/],
    ['tx empty hex', { tx: '0x' }, /not empty/],
    ['tx and callData', { tx: '0x00', callData: '0x00' }, /Both `tx` and `callData`/],
    ['callData alone', { callData: '0x0000' }, /both `includedInExtrinsic` and `includedInSignedData` are needed/],
    ['a number for includedInSignedData', { callData: '0x0000', includedInExtrinsic: '0x', includedInSignedData: 5 }, /`includedInSignedData` must be/],
    ['at an object', { tx: '0x00', at: {} }, /`at` must be/],
    ['at malformed', { tx: '0x00', at: 'abc' }, /./],
  ])('%s: 400 before the node is asked', async (_name, body, message) => {
    const answer = await post(fastcar.url, body);
    expect(answer.status).toBe(400);
    expect(String(answer.body.message)).toMatch(message);
    expect(answer.calls).toBe(0);
  });

  test('bytes that are not an extrinsic of this runtime: 400, naming the metadata', async () => {
    const answer = await post(fastcar.url, { tx: '0x0cffffff' });
    expect(answer.status).toBe(400);
    expect(String(answer.body.message)).toMatch(/cannot be read with this runtime's metadata/);
    // Sidecar 20 answers these with a 500.
    expect((await post(sidecar.url, { tx: '0x0cffffff' })).status).toBe(500);
  });
});
