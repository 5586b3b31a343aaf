// What client authors and operators read: the OpenAPI document (checked against
// real answers from the devnet with a JSON Schema validator), the /docs page in a
// real headless browser, and the Grafana dashboard against the metrics that
// fastcar and the proxy really expose.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import puppeteer, { type Browser } from 'puppeteer-core';

import type { Devnet } from '../devnet/chain';
import type { SeedManifest } from '../devnet/seed';
import { openStream } from '../harness/sseClient';
import { openApiDocument } from '../src/controllers/families';
import { createLogger } from '../src/logger';
import { proxyConfigFor } from '../src/proxy/proxyConfig';
import { startProxy } from '../src/proxy/startProxy';
import type { Fastcar } from '../src/server';
import { VERSION } from '../src/version';
import { startFastcarOn } from '../harness/fastcar';
import { getJson } from '../harness/http';
import { startDevnet } from './support/devnet';
import { servedRoutes } from './support/servedRoutes';
import { devnetSigner } from './support/signer';

const root = join(__dirname, '..');
let devnet: Devnet;
let manifest: SeedManifest;
let fastcar: Fastcar;

beforeAll(async () => {
  ({ devnet, manifest } = await startDevnet());
  fastcar = await startFastcarOn(devnet.wsUrl, { FASTCAR_PREBUILD_BLOCKS: '0' });
}, 120_000);

afterAll(async () => {
  await fastcar?.close();
  await devnet?.close();
});

describe('the OpenAPI document', () => {
  const document = openApiDocument(VERSION) as {
    paths: Record<string, { get: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }>;
    components: unknown;
  };

  it('is what GET /openapi.json serves and what the repository holds', async () => {
    const served = await getJson(`${fastcar.url}/openapi.json`);
    expect(served.body).toEqual(document);
    expect(JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8'))).toEqual(document); // `npm run openapi` writes it
  });

  it('describes every route the binder serves, with its parameters', () => {
    for (const route of servedRoutes().map(({ spec }) => spec)) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const method = route.method === 'POST' ? ('post' as 'get') : 'get';
      const operation = document.paths[path]?.[method] as unknown as { parameters: { name: string; in: string }[] };
      expect([path, operation?.parameters.filter((p) => p.in === 'query').map((p) => p.name)]).toEqual([path, [...route.query]]);
    }
  });

  // One validator for the document's schemas; answers are checked against the 200 (or error) schema of their route.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'fastcar', components: document.components });
  const validate = (schemaName: string, value: unknown) => {
    const check = ajv.compile({ $ref: `fastcar#/components/schemas/${schemaName}` });
    return check(value) ? [] : (check.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message}`);
  };

  it('matches real answers: every seeded block kind and variant, heads, headers, extrinsics, raw, ranges, runtime, node, material and errors', async () => {
    const blocks = [0, ...Object.values(manifest.blocks)];
    const cases: [string, string][] = [];
    for (const n of blocks) {
      cases.push(
        [`/blocks/${n}`, 'Block'],
        [`/blocks/${n}?eventDocs=true&extrinsicDocs=true`, 'Block'],
        [`/blocks/${n}?noFees=true&finalizedKey=false`, 'Block'],
      );
      cases.push(
        [`/blocks/${n}/header`, 'Header'],
        [`/blocks/${n}/extrinsics-raw`, 'RawBlock'],
        [`/blocks/${n}/extrinsics/0?eventDocs=true`, n === 0 ? 'Error' : 'ExtrinsicAt'],
      );
    }
    cases.push(
      [`/blocks/${manifest.blocks.transfers}?decodedXcmMsgs=true&paraId=1000`, 'Block'],
      ['/blocks/head', 'Block'],
      ['/blocks/head?finalized=false', 'Block'],
      ['/blocks/head/header', 'Header'],
      ['/blocks?range=1-12', 'BlockList'],
      ['/blocks/-1', 'Error'],
      ['/blocks/1?noFees=maybe', 'Error'],
      [`/blocks/0x${'22'.repeat(32)}`, 'Error'],
      ['/blocks/1/extrinsics/9999', 'Error'],
      [`/extrinsics/0x${'22'.repeat(32)}?from=1&to=3`, 'Error'],
      ['/extrinsics/0x22', 'Error'],
      ['/blocks/stream?from=x', 'Error'],
      ['/runtime/spec', 'RuntimeSpec'],
      ['/runtime/spec?at=2', 'RuntimeSpec'],
      ['/runtime/spec?at=x', 'Error'],
      ['/node/version', 'NodeVersion'],
      ['/node/network', 'NodeNetwork'],
      ['/transaction/material', 'TransactionMaterial'],
      ['/transaction/material?at=2&metadata=scale', 'TransactionMaterial'],
      ['/transaction/material/v14?at=2', 'TransactionMaterial'],
      ['/transaction/material/v99', 'Error'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/balance-info', 'AccountBalanceInfo'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/balance-info?at=2&denominated=true', 'AccountBalanceInfo'],
      ['/accounts/5CDvHBym6RLoxTdX9MS1acpaDbNxaFagqM5LpBiFGjWT6o1n/balance-info?token=DOT', 'AccountBalanceInfo'],
      ['/accounts/abc/balance-info', 'Error'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/validate', 'AccountValidation'],
      ['/accounts/abc/validate', 'AccountValidation'],
      ['/accounts/0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d/convert?scheme=ed25519&prefix=0', 'AccountConversion'],
      ['/accounts/0x02509540919faacf9ab52146c9aa40db68172d83777250b28e4679176e49ccdd9f/convert?scheme=ecdsa&publicKey=true', 'AccountConversion'],
      ['/accounts/abc/convert', 'Error'],
      ['/accounts/compare?addresses=5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY,15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5', 'AccountComparison'],
      [
        '/accounts/compare?addresses=0x8eaf04151687736326c9fea17e25fc5287613693&addresses=5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY',
        'AccountComparison',
      ],
      ['/accounts/compare?addresses=x', 'Error'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/asset-balances', 'AccountAssetsBalances'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/asset-balances?assets[]=1&assets[]=7&at=9', 'AccountAssetsBalances'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/pool-asset-balances', 'AccountPoolAssetsBalances'],
      [
        '/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/asset-approvals?assetId=1&delegate=5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty',
        'AccountAssetApproval',
      ],
      [
        '/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/pool-asset-approvals?assetId=0&delegate=5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty',
        'AccountAssetApproval',
      ],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/foreign-asset-balances', 'AccountForeignAssetsBalances'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/asset-balances?assets[]=x', 'Error'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/vesting-info', 'AccountVestingInfo'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/vesting-info?at=2&includeClaimable=true', 'AccountVestingInfo'],
      ['/accounts/abc/vesting-info', 'Error'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/proxy-info', 'AccountProxyInfo'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/proxy-info?at=20', 'AccountProxyInfo'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/proxy-info?at=x', 'Error'],
      ['/accounts/5GNJqTPyNqANBkUVMN1LPPrxXnFouWXoe2wNSmmEoLctxiZY/staking-info', 'AccountStakingInfo'],
      ['/accounts/5GNJqTPyNqANBkUVMN1LPPrxXnFouWXoe2wNSmmEoLctxiZY/staking-info?includeClaimedRewards=false&at=2', 'AccountStakingInfo'],
      ['/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/staking-info', 'Error'],
      ['/accounts/5GNJqTPyNqANBkUVMN1LPPrxXnFouWXoe2wNSmmEoLctxiZY/staking-payouts', 'Error'],
      ['/accounts/5GNJqTPyNqANBkUVMN1LPPrxXnFouWXoe2wNSmmEoLctxiZY/staking-payouts?depth=x', 'Error'],
      ['/runtime/metadata?at=2', 'RuntimeMetadata'],
      ['/runtime/metadata/versions', 'MetadataVersions'],
      ['/runtime/metadata/v15?at=2', 'RuntimeMetadata'],
      ['/runtime/metadata/v99', 'Error'],
      ['/runtime/code?at=2', 'RuntimeCode'],
      ['/node/transaction-pool?includeFee=true', 'TransactionPool'],
      ['/node/transaction-pool?includeFee=maybe', 'Error'],
      ['/pallets/system/storage', 'PalletStorage'],
      ['/pallets/0/storage?onlyIds=true&at=2', 'PalletStorage'],
      ['/pallets/system/storage/account?keys[]=5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY&metadata=true', 'PalletStorageItem'],
      ['/pallets/assets/storage/asset?keys[]=999', 'PalletStorageItem'],
      ['/pallets/system/storage/account', 'Error'],
      ['/pallets/balances/consts', 'PalletConstants'],
      ['/pallets/balances/consts/existentialDeposit?metadata=true', 'PalletConstantItem'],
      ['/pallets/balances/errors?onlyIds=true', 'PalletErrors'],
      ['/pallets/balances/errors/insufficientBalance?metadata=true', 'PalletErrorItem'],
      ['/pallets/balances/events', 'PalletEvents'],
      ['/pallets/balances/events/transfer', 'PalletEventItem'],
      ['/pallets/balances/dispatchables', 'PalletDispatchables'],
      ['/pallets/balances/dispatchables/transferKeepAlive?metadata=true', 'PalletDispatchableItem'],
      ['/pallets/nope/errors', 'Error'],
    );
    // Extrinsics found by hash: each seeded kind's, with and without options.
    for (const n of [manifest.blocks.transfers, manifest.blocks.multisigExecute, manifest.blocks.feeInAsset]) {
      const { extrinsics } = (await getJson(`${fastcar.url}/blocks/${n}`)).body as { extrinsics: { hash: string }[] };
      const last = extrinsics[extrinsics.length - 1].hash;
      cases.push(
        [`/extrinsics/${last}?from=${n}&to=${n}`, 'ExtrinsicFound'],
        [`/extrinsics/${last}?from=${n - 2}&to=${n}&eventDocs=true&noFees=true`, 'ExtrinsicFound'],
      );
    }
    const failures: string[] = [];
    for (const [path, schema] of cases) {
      const answer = await getJson(fastcar.url + path);
      const problems = validate(schema, answer.body);
      if (problems.length) failures.push(`${path} (${answer.status}) as ${schema}: ${problems.join('; ')}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('matches real answers of the POST routes, and their bodies match the documented request bodies', async () => {
    const signer = await devnetSigner(devnet.wsUrl);
    try {
      const tx = await signer.transfer(1n);
      const call = signer.api.tx.system.remark('0x1234').method.toHex();
      const cases: [string, Record<string, unknown>, string, string][] = [
        ['/transaction/fee-estimate', { tx }, 'TransactionBody', 'TransactionFeeEstimate'],
        ['/transaction/fee-estimate', { tx: '0x1234' }, 'TransactionBody', 'TransactionError'],
        ['/transaction/fee-estimate', { tx: 'hello' }, 'TransactionBody', 'Error'],
        ['/transaction/dry-run', { tx: call, senderAddress: signer.sender.address }, 'DryRunBody', 'TransactionDryRun'],
        ['/transaction/dry-run', { tx: call, senderAddress: signer.sender.address, at: '2', xcmVersion: 4 }, 'DryRunBody', 'TransactionDryRun'],
        ['/transaction/dry-run', { tx: call, senderAddress: 'xyz' }, 'DryRunBody', 'TransactionError'],
        ['/transaction', { tx: '0x1234' }, 'TransactionBody', 'TransactionError'],
        ['/transaction/metadata-blob', { tx }, 'MetadataBlobBody', 'TransactionMetadataBlob'],
        ['/transaction/metadata-blob', { callData: call, includedInExtrinsic: '0x', includedInSignedData: '0x', at: '2' }, 'MetadataBlobBody', 'Error'],
        ['/transaction/metadata-blob', { tx: 'hello' }, 'MetadataBlobBody', 'Error'],
      ];
      const failures: string[] = [];
      for (const [path, body, bodySchema, schema] of cases) {
        const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
        const response = await fetch(fastcar.url + path, request);
        const answer: unknown = await response.json();
        const problems = [...validate(schema, answer), ...(schema === 'Error' ? [] : validate(bodySchema, body))];
        if (problems.length) failures.push(`${path} ${JSON.stringify(body).slice(0, 80)} (${response.status}) as ${schema}: ${problems.join('; ')}`);
      }
      expect(failures).toEqual([]);
    } finally {
      await signer.close();
    }
  }, 60_000);

  it('matches what streams send: blocks, headers and the final resume event', async () => {
    const from = manifest.head.number - 2;
    const blocks = await openStream(`${fastcar.url}/blocks/stream?from=${from}&eventDocs=true`);
    const headers = await openStream(`${fastcar.url}/blocks/head/header/stream?from=${from}`);
    try {
      const problems = [
        ...(await blocks.blocks(3)).flatMap((event) => validate('Block', JSON.parse(event.data))),
        ...(await headers.blocks(3)).flatMap((event) => validate('Header', JSON.parse(event.data))),
        ...validate('StreamResume', { from: 12, reason: 'lagging', message: 'read faster' }),
        ...validate('StreamNotice', { message: 'The node is unavailable' }),
      ];
      expect(problems).toEqual([]);
      const stream = document.paths['/blocks/stream'].get as unknown as { responses: Record<string, { content: Record<string, unknown> }> };
      expect(Object.keys(stream.responses[200].content)).toEqual(['text/event-stream']);
    } finally {
      blocks.close();
      headers.close();
    }
  });

  it('would catch a field it does not describe', () => {
    const block = {
      number: '1',
      hash: `0x${'1'.repeat(64)}`,
      parentHash: `0x${'2'.repeat(64)}`,
      stateRoot: `0x${'3'.repeat(64)}`,
      extrinsicsRoot: `0x${'4'.repeat(64)}`,
    };
    const whole = { ...block, authorId: null, logs: [], onInitialize: { events: [] }, extrinsics: [], onFinalize: { events: [] } };
    expect(validate('Block', whole)).toEqual([]);
    expect(validate('Block', { ...whole, surprise: 1 })).not.toEqual([]);
  });

  it('names the headers answers carry', async () => {
    const answer = await getJson(`${fastcar.url}/blocks/${manifest.blocks.transfers}`);
    const documented = JSON.stringify(document.paths['/blocks/{blockId}']);
    for (const name of ['X-Rpc-Calls', 'X-Rpc-Waves', 'X-Cache', 'ETag']) {
      expect([name, answer.headers.has(name)]).toEqual([name, true]);
      expect(documented).toContain(`"${name}"`);
    }
  });
});

describe('the /docs page, in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    const executablePath = execFileSync('sh', ['-c', 'command -v chromium']).toString().trim(); // scripts/ensure-chromium.sh installs it
    browser = await puppeteer.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], headless: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('loads with no outside request, lists the routes, and "try it" fetches a block from the devnet', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      // data: URLs are inline images; anything fetched over the network must come from us.
      if (/^https?:/.test(request.url()) && !request.url().startsWith(fastcar.url)) outside.push(request.url());
    });
    await page.goto(`${fastcar.url}/docs#/blocks/block`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.opblock-summary-path');
    const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((node) => node.getAttribute('data-path')));
    for (const { spec } of servedRoutes()) expect(paths).toContain(spec.path.replace(/:(\w+)/g, '{$1}'));

    // Deep-linked: the block operation is open. Try it out with a seeded height.
    const operation = '#operations-blocks-block';
    await page.waitForSelector(`${operation} .try-out__btn`);
    await page.click(`${operation} .try-out__btn`);
    await page.type(`${operation} input[placeholder="blockId"]`, String(manifest.blocks.transfers));
    await page.click(`${operation} .execute`);
    await page.waitForSelector(`${operation} .live-responses-table tr.response .response-col_status`, { timeout: 30_000 });
    const status = await page.$eval(`${operation} .live-responses-table tr.response .response-col_status`, (node) => node.textContent?.trim());
    const body = await page.$eval(`${operation} .live-responses-table tr.response .response-col_description`, (node) => node.textContent ?? '');
    expect(status).toBe('200');
    expect(body).toContain(`"number": "${manifest.blocks.transfers}"`);
    expect(outside).toEqual([]);
    await page.close();
  }, 90_000);
});

describe('the Grafana dashboard', () => {
  it('queries only metrics that fastcar and the proxy expose', async () => {
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'dashboards', 'fastcar.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const queried = new Set(dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => target.expr.match(/\b(fastcar|proxy)_[a-z_]+\b/g) ?? [])));
    const { proxy, address } = await startProxy(proxyConfigFor([devnet.wsUrl], { port: 0, logLevel: 'silent' }), createLogger('silent'));
    try {
      await getJson(`${fastcar.url}/blocks/${manifest.blocks.transfers}?unused=1`); // counters with at least one sample
      const exposed = `${await (await fetch(`${fastcar.metricsUrl}/metrics`)).text()}\n${await (await fetch(`http://${address}/metrics`)).text()}`;
      // Declared is enough: a labelled counter has no series until its first sample.
      const missing = [...queried].filter((name) => !new RegExp(`^(# TYPE )?${name}(\\{| )`, 'm').test(exposed));
      expect(missing).toEqual([]);
      expect(queried.size).toBeGreaterThan(15);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('is provisioned by the compose file, beside a Prometheus that scrapes fastcar and the proxy', () => {
    const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain('./deploy/grafana/dashboards:/var/lib/grafana/dashboards');
    const prometheus = readFileSync(join(root, 'deploy', 'prometheus.yml'), 'utf8');
    for (const target of ['fastcar-1:9100', 'fastcar-2:9100', 'rpc-proxy:9955']) expect(prometheus).toContain(target);
  });
});
