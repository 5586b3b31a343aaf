// The POST routes of /transaction against sidecar's final line, 20.14.1, on the same
// devnet: fee estimates (equal to sidecar's, to the fee the block reports once the same
// transaction lands, one node call and then none), submission (the transaction lands in
// the next block, the node's refusals named), and every fault of a body refused before
// the node is asked: not JSON, another content type, too large, too slow, no `tx`, a
// `tx` that is not hex or not an extrinsic. Dry runs against sidecar's answers (and
// the chain's safe XCM version where sidecar sends 0); submission behind the caching
// JSON-RPC proxy, and never sent twice when a hosted provider throttles it.
import { request } from 'node:http';
import { blake2AsHex } from '@polkadot/util-crypto';

import type { Devnet } from '../devnet/chain';
import { startFastcarOn } from '../harness/fastcar';
import { startHostedProvider } from '../harness/hostedProvider';
import { getJson } from '../harness/http';
import { startSidecar, type Peer } from '../harness/processes';
import { MAX_JSON_BODY_BYTES } from '../src/http/requestBody';
import { createLogger } from '../src/logger';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import { startProxy } from '../src/proxy/startProxy';
import type { Fastcar } from '../src/server';
import { ON_REAL_NODE, startDevnet } from './support/devnet';
import { devnetSigner, type Signer } from './support/signer';

const UNIT = 10n ** 12n;

/**
 * What a node may say to a transaction sent again after it landed: chopsticks checks its nonce
 * (stale); a real node's pool bans it for a while once it has seen it included, and says so
 * before any check (before that, the nonce is stale there too).
 */
const LANDED_AGAIN = ON_REAL_NODE ? ['temporarilyBanned', 'stale'] : ['stale'];

let devnet: Devnet;
let signer: Signer;
let sidecar: Peer;
let fastcar: Fastcar;

beforeAll(async () => {
  ({ devnet } = await startDevnet());
  [signer, sidecar, fastcar] = await Promise.all([
    devnetSigner(devnet.wsUrl),
    startSidecar(devnet.wsUrl, '/runtime/spec', {}, 20),
    // A short request timeout, so that a body sent too slowly is seen cut within the test.
    startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0', FASTCAR_REQUEST_TIMEOUT_MS: '2000', FASTCAR_HEADERS_TIMEOUT_MS: '1000' }),
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

async function post(base: string, path: string, body: unknown, contentType = 'application/json'): Promise<Answer> {
  const sent = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(base + path, { method: 'POST', headers: { 'content-type': contentType }, body: sent });
  const text = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: response.status, body: parsed, calls: Number(response.headers.get('x-rpc-calls') ?? NaN) };
}

/** A raw request whose body is written by `write`; resolves to the status (or 0 when the connection ended without one) and the time it took. */
function rawPost(
  path: string,
  headers: Record<string, string | number>,
  write: (req: ReturnType<typeof request>) => void,
): Promise<{ status: number; body: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const url = new URL(fastcar.url + path);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent: false });
    let settled = false;
    const done = (status: number, body: string) => {
      if (settled) return;
      settled = true;
      resolve({ status, body, ms: Date.now() - started });
    };
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done(res.statusCode ?? 0, body));
      res.on('error', () => done(res.statusCode ?? 0, body));
    });
    req.on('error', () => done(0, ''));
    write(req);
  });
}

/** Sidecar's tx error without its stack, and with fastcar's `reason` when it named one. */
function withoutStack(body: Record<string, unknown>, reason?: string): Record<string, unknown> {
  const { stack: _stack, ...rest } = body;
  return reason ? { ...rest, reason } : rest;
}

let estimated: Record<string, unknown>;
/** The block the submitted transfer landed in. */
let landedIn = 0;
let transfer: `0x${string}`;

describe('POST /transaction/fee-estimate', () => {
  it("equals sidecar's estimate, costs one node call, then none for the same transaction at the same block", async () => {
    transfer = await signer.transfer(3n * UNIT);
    // Another transaction first: the finalized block's runtime version is then known, as it is once anything is read there.
    const warm = await post(fastcar.url, '/transaction/fee-estimate', { tx: await signer.remark(8) });
    expect(warm.status).toBe(200);

    const ours = await post(fastcar.url, '/transaction/fee-estimate', { tx: transfer });
    const theirs = await post(sidecar.url, '/transaction/fee-estimate', { tx: transfer });
    expect(theirs.status).toBe(200);
    expect(ours).toEqual({ status: 200, body: theirs.body, calls: 1 });
    expect(Object.keys(ours.body)).toEqual(['weight', 'class', 'partialFee']);

    const again = await post(fastcar.url, '/transaction/fee-estimate', { tx: transfer });
    expect(again).toEqual({ status: 200, body: theirs.body, calls: 0 });
    estimated = ours.body;
  });

  it('makes one estimate for many clients asking for the same transaction at once', async () => {
    const remark = await signer.remark(9);
    const finalizedHeight = async () => Number(((await getJson(`${fastcar.url}/blocks/head/header`)).body as { number: string }).number);
    const before = await finalizedHeight();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(fastcar.url, '/transaction/fee-estimate', { tx: remark })));
    const moved = (await finalizedHeight()) - before;
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    // One of them asked the node; the others waited on its call. Beside the real node the finalized
    // head moves every few seconds: a block fastcar has not read at yet costs its runtime version too,
    // and clients after a move are answered at the new block (once a block, not once a client).
    expect(answers.reduce((sum, answer) => sum + answer.calls, 0)).toBeLessThanOrEqual(2 * (1 + moved));
    expect(answers.reduce((sum, answer) => sum + answer.calls, 0)).toBeGreaterThanOrEqual(1);
  });

  it("refuses a hex that is not an extrinsic before asking the node, in sidecar's shape without its stack", async () => {
    for (const tx of ['0x1234', '0x0a03008eaf04151687736326c9fea17e25fc5287613693c912909cb226aa4794f26a48070010a5d4e8']) {
      const ours = await post(fastcar.url, '/transaction/fee-estimate', { tx });
      const theirs = await post(sidecar.url, '/transaction/fee-estimate', { tx });
      expect({ tx, status: ours.status, calls: ours.calls }).toEqual({ tx, status: 400, calls: 0 });
      expect(theirs.status).toBe(400);
      expect(Object.keys(ours.body)).toEqual(['code', 'error', 'transaction', 'cause', 'at']);
      // Beside the real node the finalized head may move between the two answers: their `at` then differ by a block.
      const atHead = ON_REAL_NODE ? { at: expect.objectContaining({ hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) }) } : {};
      expect({ ...ours.body, cause: undefined }).toEqual({ ...withoutStack(theirs.body), cause: undefined, ...atHead });
      expect(String(ours.body.cause)).toMatch(/length less than remainder/);
    }
  });
});

describe('bodies refused before the node is asked', () => {
  const routes = ['/transaction/fee-estimate', '/transaction'];

  it('answers every fault of a body with a clear 4xx and no node call, on both routes', async () => {
    const cases: [string, unknown, string, number, RegExp][] = [
      ['not JSON', '{"tx": "0x12', 'application/json', 400, /not valid JSON/],
      ['empty', '', 'application/json', 400, /empty/],
      ['wrong content type', JSON.stringify({ tx: transfer }), 'text/plain', 415, /Content-Type: application\/json/],
      ['form content type', `tx=${transfer}`, 'application/x-www-form-urlencoded', 415, /Content-Type: application\/json/],
      ['missing tx', {}, 'application/json', 400, /Missing field `tx`/],
      ['not an object', [transfer], 'application/json', 400, /Missing field `tx`/],
      ['tx not a string', { tx: 5 }, 'application/json', 400, /0x-prefixed hex/],
      ['tx not hex', { tx: 'hello' }, 'application/json', 400, /0x-prefixed hex/],
      ['tx of half a byte', { tx: '0x123' }, 'application/json', 400, /0x-prefixed hex/],
      ['hex not an extrinsic', { tx: '0x1234' }, 'application/json', 400, /length less than remainder/],
    ];
    for (const path of routes) {
      for (const [name, body, type, status, message] of cases) {
        const answer = await post(fastcar.url, path, body, type);
        expect({ path, name, status: answer.status, calls: answer.calls }).toEqual({ path, name, status, calls: 0 });
        expect({ path, name, message: String(answer.body.message ?? answer.body.cause) }).toEqual({ path, name, message: expect.stringMatching(message) });
        expect(answer.body.stack).toBeUndefined();
      }
    }
  });

  it('refuses a compressed body, a body announced too large at once, and one that grows too large as it arrives', async () => {
    const tooLong = { 'content-type': 'application/json', 'content-length': MAX_JSON_BODY_BYTES + 1 };
    const compressed = { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': 2 };
    const gzipped = await rawPost('/transaction', compressed, (req) => req.end('{}'));
    expect(gzipped.status).toBe(415);
    const announced = await rawPost('/transaction', tooLong, (req) => req.write('{"tx":"0x'));
    expect(announced.status).toBe(413);
    expect(JSON.parse(announced.body).message).toContain(`larger than ${MAX_JSON_BODY_BYTES} bytes`);

    const chunk = 'ab'.repeat(256 * 1024);
    const grown = await rawPost('/transaction/fee-estimate', { 'content-type': 'application/json' }, (req) => {
      req.write('{"tx":"0x');
      const more = () => {
        if (req.destroyed) return;
        if (req.write(chunk)) setImmediate(more);
        else req.once('drain', more);
      };
      more();
      req.on('error', () => undefined);
    });
    // Refused as it grows: 413, or the connection closed under a client still writing before it read the 413.
    expect([0, 413]).toContain(grown.status);
    // Still answering after both.
    expect((await getJson(`${fastcar.url}/node/version`)).status).toBe(200);
  });

  it('cuts a body that arrives too slowly at the request timeout, and goes on after a client that left mid-body', async () => {
    const slow = await rawPost('/transaction', { 'content-type': 'application/json', 'content-length': 200 }, (req) => req.write('{"tx":"0x'));
    expect([408, 0]).toContain(slow.status);
    expect(slow.ms).toBeGreaterThanOrEqual(1500);
    expect(slow.ms).toBeLessThan(6000);

    await new Promise<void>((resolve) => {
      const url = new URL(fastcar.url);
      const headers = { 'content-type': 'application/json', 'content-length': 200 };
      const req = request({ host: url.hostname, port: url.port, path: '/transaction', method: 'POST', headers });
      req.on('error', () => resolve());
      req.write('{"tx":"0x12', () =>
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100),
      );
    });
    expect((await post(fastcar.url, '/transaction/fee-estimate', { tx: '0x1234' })).status).toBe(400);
  });

  it('serves POST routes under /v1 and through Express for other spellings, and only to POST', async () => {
    expect((await post(fastcar.url, '/v1/transaction/fee-estimate', { tx: transfer })).body).toEqual(estimated);
    expect((await post(fastcar.url, '/transaction/fee-estimate/', { tx: transfer })).body).toEqual(estimated);
    expect((await getJson(`${fastcar.url}/transaction/fee-estimate`)).status).toBe(404);
    expect((await post(fastcar.url, '/transaction/material', { tx: transfer })).status).toBe(404);
  });
});

describe('POST /transaction/dry-run', () => {
  const dry = (base: string, body: Record<string, unknown>) => post(base, '/transaction/dry-run', body);
  /** The same dry run on both at the finalized head: asked together, and again (three times at most) when a real node's head moved between the two. */
  const dryBoth = async (body: Record<string, unknown>, theirBody = body) => {
    const together = () => Promise.all([dry(fastcar.url, body), dry(sidecar.url, theirBody)]);
    let [ours, theirs] = await together();
    for (let tries = 3; tries > 0 && JSON.stringify(ours.body.at) !== JSON.stringify(theirs.body.at); tries--) {
      // fastcar's head is the one it follows, a moment behind the node's own just after a block: let it catch up.
      await new Promise((resolve) => setTimeout(resolve, 300));
      [ours, theirs] = await together();
    }
    return [ours, theirs] as const;
  };

  it('answers as sidecar 20 for a call that succeeds, one whose dispatch fails, a bad origin and a remark, in one wave', async () => {
    const { api, sender: alice, recipient: bob } = signer;
    const calls = {
      transfer: api.tx.balances.transferKeepAlive(bob.address, UNIT).method.toHex(),
      tooMuch: api.tx.balances.transferKeepAlive(bob.address, 10n ** 30n).method.toHex(),
      forceTransfer: api.tx.balances.forceTransfer(bob.address, bob.address, 1n).method.toHex(),
      remark: api.tx.system.remark('0x1234').method.toHex(),
    };
    const resultTypes: string[] = [];
    for (const [name, tx] of Object.entries(calls)) {
      const body = { tx, senderAddress: alice.address };
      const [ours, theirs] = await dryBoth(body);
      expect({ name, status: theirs.status }).toEqual({ name, status: 200 });
      expect({ name, ours: ours.body, status: ours.status }).toEqual({ name, ours: theirs.body, status: 200 });
      resultTypes.push((ours.body.result as { resultType: string }).resultType);
      const again = await fetch(`${fastcar.url}/transaction/dry-run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      // One wave, also beside the real node when its finalized head moved meanwhile: the run at a block
      // not read at yet is made with the newest runtime, beside the ask for the block's own version.
      expect(again.headers.get('x-rpc-waves')).toBe('1');
    }
    expect(resultTypes).toEqual(['DispatchOutcome', 'DispatchError', 'DispatchError', 'DispatchOutcome']);
  });

  it("sends XCM in the chain's safe version where sidecar sends 0: sidecar's answer when given that version", async () => {
    const { api, sender: alice } = signer;
    const safe = ((await api.query.polkadotXcm.safeXcmVersion()) as unknown as { unwrap(): { toNumber(): number } }).unwrap().toNumber();
    const xcmSend = '0x1f0004010004040a';
    const sidecarDefault = await dry(sidecar.url, { tx: xcmSend, senderAddress: alice.address });
    const [ours, sidecarSafe] = await dryBoth({ tx: xcmSend, senderAddress: alice.address }, { tx: xcmSend, senderAddress: alice.address, xcmVersion: safe });
    expect((sidecarDefault.body.result as { result: unknown }).result).toBe('VersionedConversionFailed');
    expect(ours.body).toEqual(sidecarSafe.body);
    expect((ours.body.result as { resultType: string }).resultType).toBe('DispatchOutcome');
    // A version the client names is used as it is.
    const named = { tx: xcmSend, senderAddress: alice.address, xcmVersion: 99 };
    const [ourNamed, theirNamed] = await dryBoth(named);
    expect(ourNamed.body).toEqual(theirNamed.body);
  });

  it('refuses a bad sender, a call the runtime cannot read and a missing field before asking the node, as sidecar does', async () => {
    const { sender: alice } = signer;
    const cases: [string, Record<string, unknown>][] = [
      ['bad sender', { tx: '0x0000081234', senderAddress: 'xyz' }],
      ['not a call', { tx: '0x1234', senderAddress: alice.address }],
      ['a signed extrinsic', { tx: transfer, senderAddress: alice.address }],
    ];
    for (const [name, body] of cases) {
      const [ours, theirs] = await dryBoth(body);
      // Never the dry run itself: no call on the devnet; beside a real node, whose head moves, at most a new head's runtime version.
      const callsAllowed = ON_REAL_NODE ? 1 : 0;
      expect({ name, status: ours.status, withinCalls: ours.calls <= callsAllowed }).toEqual({ name, status: 400, withinCalls: true });
      expect({ name, status: theirs.status }).toEqual({ name, status: 400 });
      expect(Object.keys(ours.body)).toEqual(['code', 'error', 'transaction', 'cause', 'at']);
      expect({ name, ...ours.body, cause: undefined }).toEqual({ name, ...withoutStack(theirs.body), cause: undefined });
    }
    const missing = [
      [{ senderAddress: alice.address }, 'Missing field `tx` on request body.'],
      [{ tx: '0x0000081234' }, 'Missing field `senderAddress` on request body.'],
    ] as const;
    for (const [body, message] of missing) {
      const ours = await dry(fastcar.url, body);
      const theirs = await dry(sidecar.url, body);
      expect({ ours: ours.body, status: ours.status }).toEqual({ ours: { code: 400, message }, status: 400 });
      expect(theirs.body.message).toBe(message);
    }
  });

  it('runs at the block `at` names and says so', async () => {
    const answer = await dry(fastcar.url, { tx: '0x0000081234', senderAddress: signer.sender.address, at: '5' });
    expect(answer.status).toBe(200);
    expect((answer.body.at as { height: string }).height).toBe('5');
    expect((await dry(fastcar.url, { tx: '0x0000081234', senderAddress: signer.sender.address, at: 'abc' })).status).toBe(400);
  });
});

describe('POST /transaction', () => {
  it('submits once: the transaction lands in the next block with the fee estimated for it, and the balance moves', async () => {
    const bob = signer.recipient.address;
    const before = ((await signer.api.query.system.account(bob)) as unknown as { data: { free: { toBigInt(): bigint } } }).data.free.toBigInt();
    const submitted = await post(fastcar.url, '/transaction', { tx: transfer });
    expect(submitted).toEqual({ status: 200, body: { hash: blake2AsHex(transfer, 256) }, calls: 1 });

    const block = await devnet.chain.newBlock();
    landedIn = block.number;
    const extrinsics = await block.extrinsics;
    expect(extrinsics).toContain(transfer);
    const after = ((await signer.api.query.system.account(bob)) as unknown as { data: { free: { toBigInt(): bigint } } }).data.free.toBigInt();
    expect(after - before).toBe(3n * UNIT);

    const answer = await getJson(`${fastcar.url}/blocks/${block.number}`);
    const landed = (answer.body as { extrinsics: { hash: string; info: Record<string, unknown> }[] }).extrinsics.find((e) => e.hash === submitted.body.hash);
    expect(landed?.info.partialFee).toBe(estimated.partialFee);
  });

  it("estimates at a finalized block nothing has read yet with its runtime version asked in the estimate's own wave", async () => {
    // fastcar follows the new block as its finalized head, and knows its hash (a read at that height).
    for (let tries = 0; tries < 50; tries++) {
      if (Number(((await getJson(`${fastcar.url}/blocks/head/header`)).body as { number: string }).number) === landedIn) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await getJson(`${fastcar.url}/blocks/${landedIn}/header`)).status).toBe(200);
    const tx = await signer.remark(16);
    const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx }) };
    const first = await fetch(`${fastcar.url}/transaction/fee-estimate`, request);
    const theirs = await post(sidecar.url, '/transaction/fee-estimate', { tx });
    expect(await first.json()).toEqual(theirs.body);
    // The block's runtime version beside the estimate, made with the newest runtime loaded: two calls, one wave.
    expect([first.headers.get('x-rpc-calls'), first.headers.get('x-rpc-waves')]).toEqual(['2', '1']);
    expect((await post(fastcar.url, '/transaction/fee-estimate', { tx })).calls).toBe(0);
  });

  it("names the node's refusals: a transaction already in a block (stale nonce), a bad signature", async () => {
    // The same transaction again: its nonce is used now.
    const ours = await post(fastcar.url, '/transaction', { tx: transfer });
    const theirs = await post(sidecar.url, '/transaction', { tx: transfer });
    expect(theirs.status).toBe(400);
    expect(ours.status).toBe(400);
    expect(LANDED_AGAIN).toContain(ours.body.reason);
    // A real pool may ban it between the two submissions: there the same answer but for the node's words.
    const nodeWords = ON_REAL_NODE ? { cause: undefined, reason: undefined } : {};
    expect({ ...ours.body, ...nodeWords }).toEqual({ ...withoutStack(theirs.body, ours.body.reason as string), ...nodeWords });

    // One bit of the signature changed (the signature starts after the length, version, address type and 32-byte address).
    const fresh = await signer.transfer(UNIT);
    const at = 2 * (2 + 1 + 1 + 32 + 1) + 2 + 10;
    const forge = (bit: number) => `${fresh.slice(0, at)}${(parseInt(fresh[at], 16) ^ bit).toString(16)}${fresh.slice(at + 1)}` as `0x${string}`;
    // Each its own forgery: a real node bans a transaction it found invalid, and would answer the second asker "temporarily banned".
    const [forged, forgedForSidecar] = [forge(1), forge(2)];
    const badOurs = await post(fastcar.url, '/transaction', { tx: forged });
    const badTheirs = await post(sidecar.url, '/transaction', { tx: forgedForSidecar });
    expect(badTheirs.status).toBe(400);
    expect(badOurs.body).toEqual({ ...withoutStack(badTheirs.body, 'badProof'), transaction: forged });
    expect(Object.keys(badOurs.body)).toEqual(['code', 'error', 'transaction', 'cause', 'reason']);
  });

  it('refuses a hex that is not an extrinsic without sending it, as sidecar words it', async () => {
    const call = '0x0a03008eaf04151687736326c9fea17e25fc5287613693c912909cb226aa4794f26a48070010a5d4e8';
    const ours = await post(fastcar.url, '/transaction', { tx: call });
    const theirs = await post(sidecar.url, '/transaction', { tx: call });
    expect(theirs.status).toBe(400);
    expect({ ...ours.body, cause: undefined }).toEqual({ ...withoutStack(theirs.body), cause: undefined });
    expect(ours.body.cause).toContain('length less than remainder');
  });
});

describe('behind the caching JSON-RPC proxy', () => {
  it('submits through it (never cached, merged or resent there), the refusal of a second submission passed back', async () => {
    const { proxy, address } = await startProxy(proxyConfigFor([devnet.wsUrl], { port: 0, logLevel: 'silent' }), createLogger('silent'));
    const behind = await startFastcarOn(`ws://${address}`, { FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      const { api, sender: alice, recipient: bob } = signer;
      const nonce = (await api.rpc.system.accountNextIndex(alice.address)).toNumber();
      const tx = (await api.tx.balances.transferKeepAlive(bob.address, UNIT).signAsync(alice, { nonce, era: 0 })).toHex();
      expect((await post(behind.url, '/transaction/fee-estimate', { tx })).status).toBe(200);
      const submitted = await post(behind.url, '/transaction', { tx });
      expect(submitted).toEqual({ status: 200, body: { hash: blake2AsHex(tx, 256) }, calls: 1 });
      const block = await devnet.chain.newBlock();
      expect(await block.extrinsics).toContain(tx);
      const again = await post(behind.url, '/transaction', { tx });
      expect(again.status).toBe(400);
      expect(LANDED_AGAIN).toContain(again.body.reason);
    } finally {
      await behind.close();
      await proxy.close();
    }
  });
});

describe('a submission is sent once, whatever the provider answers', () => {
  it('is not sent again when a hosted provider throttles it: not by fastcar over HTTP, not by the proxy to its HTTP upstream', async () => {
    const stand = await startHostedProvider(devnet.wsUrl, { throttleCall: (method) => method === 'author_submitExtrinsic', retryAfterSeconds: 0.2 });
    const { proxy, address } = await startProxy(proxyConfigFor([stand.url], { port: 0, logLevel: 'silent' }), createLogger('silent'));
    const direct = await startFastcarOn(stand.url, { FASTCAR_PREBUILD_BLOCKS: '0' });
    try {
      const { api, sender: alice, recipient: bob } = signer;
      const nonce = (await api.rpc.system.accountNextIndex(alice.address)).toNumber();
      const tx = (await api.tx.balances.transferKeepAlive(bob.address, UNIT).signAsync(alice, { nonce, era: 0 })).toHex();
      const refused = await post(direct.url, '/transaction', { tx });
      expect(refused.status).toBe(503);
      expect(stand.counts.methods.author_submitExtrinsic).toBe(1);

      const answer = await fetch(`http://${address}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'author_submitExtrinsic', params: [tx] }),
      });
      expect(((await answer.json()) as { error?: unknown }).error).toBeDefined();
      expect(stand.counts.methods.author_submitExtrinsic).toBe(2);
      // Reads, by contrast, are sent again until the provider serves them.
      expect(stand.counts.methods.chain_getFinalizedHead ?? 0).toBeGreaterThan(0);
    } finally {
      await direct.close();
      await proxy.close();
      await stand.close();
    }
  });
});

describe('the rate limit', () => {
  it('counts POST requests like any other', async () => {
    const limited = await startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0', FASTCAR_RATE_LIMIT_PER_IP: '2' });
    try {
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await post(limited.url, '/transaction/fee-estimate', { tx: '0x1234' })).status);
      expect(statuses).toContain(429);
      expect(statuses).toContain(400);
    } finally {
      await limited.close();
    }
  });
});
