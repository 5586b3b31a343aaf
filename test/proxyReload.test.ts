// The proxy takes a new configuration on SIGHUP while a client stays connected:
// the proxy in a process of its own with a config file, two devnets made to
// differ (blocks made on the first), the file rewritten to name the second.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';

import type { Devnet } from '../devnet/chain';
import { startProxyProcess } from '../harness/processes';
import { connectRpc } from '../harness/rpcClient';
import { startDevnet } from './support/devnet';

type ProxyProcess = Awaited<ReturnType<typeof startProxyProcess>>;
type Answer = { id: number; result?: unknown; error?: { code: number; message: string } };

let nodeA: Devnet;
let nodeB: Devnet;
let proxy: ProxyProcess;
let dir: string;
let configFile: string;
let output = '';

const write = (config: unknown) => writeFileSync(configFile, typeof config === 'string' ? config : JSON.stringify(config));

beforeAll(async () => {
  const [a, b] = await Promise.all([startDevnet(), startDevnet()]);
  [nodeA, nodeB] = [a.devnet, b.devnet];
  // Node A two blocks ahead of B: whose answers the proxy gives shows which node it uses.
  const direct = await connectRpc(nodeA.wsUrl);
  await direct.call('dev_newBlock', [{ count: 2 }]);
  direct.close();
  dir = mkdtempSync(join(tmpdir(), 'fastcar-proxy-reload-'));
  configFile = join(dir, 'proxy.json');
  write({ upstreams: [nodeA.wsUrl], healthIntervalMs: 500 });
  proxy = await startProxyProcess([], { PROXY_LOG_LEVEL: 'info' }, ['--config', configFile]);
  proxy.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
}, 180_000);

afterAll(async () => {
  await proxy?.stop();
  await Promise.all([nodeA?.close(), nodeB?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A WebSocket client that notices being dropped. */
class Client {
  private readonly socket: WebSocket;
  private readonly pending = new Map<number, (answer: unknown) => void>();
  private nextId = 0;
  closed = false;
  /** Results of subscription notifications, in order. */
  readonly notified: { number: string }[] = [];

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('close', () => (this.closed = true));
    this.socket.on('message', (data) => {
      const parsed = JSON.parse(String(data)) as Answer | Answer[] | { method: string; params: { result: { number: string } } };
      if ('method' in parsed) return void this.notified.push(parsed.params.result);
      // A batch refused whole is answered with one error of id null: it goes to the latest call.
      const id = (Array.isArray(parsed) ? parsed[0]?.id : parsed.id) ?? this.nextId;
      this.pending.get(id)?.(parsed);
      this.pending.delete(id);
    });
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => this.socket.once('open', () => resolve()).once('error', reject));
  }

  send<T = Answer>(body: (id: number) => unknown): Promise<T> {
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.pending.set(id, resolve as (answer: unknown) => void);
      this.socket.send(JSON.stringify(body(id)));
    });
  }

  call(method: string, params: unknown[] = []): Promise<Answer> {
    return this.send((id) => ({ jsonrpc: '2.0', id, method, params }));
  }

  close(): void {
    this.socket.close();
  }
}

async function height(client: Client): Promise<number> {
  const answer = await client.call('chain_getHeader');
  if (answer.error) throw new Error(JSON.stringify(answer.error));
  return parseInt((answer.result as { number: string }).number, 16);
}

async function directHeight(node: Devnet): Promise<number> {
  const direct = await connectRpc(node.wsUrl);
  try {
    return parseInt((await direct.call<{ number: string }>('chain_getHeader')).number, 16);
  } finally {
    direct.close();
  }
}

/** Sends SIGHUP and waits for the proxy's log line that answers it. */
async function reload(expected: string): Promise<string> {
  const from = output.length;
  proxy.child.kill('SIGHUP');
  const deadline = Date.now() + 15_000;
  while (!output.slice(from).includes(expected)) {
    if (Date.now() > deadline) throw new Error(`no "${expected}" in the proxy's log: ${output.slice(from)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return output.slice(from);
}

async function metrics(): Promise<string> {
  return (await fetch(`${proxy.url}/metrics`)).text();
}

const batchOf = (size: number) => (id: number) =>
  Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: i === 0 ? id : `${id}-${i}`, method: 'system_chain', params: [] }));

it('moves to a new node, applies new limits and method lists on SIGHUP, and keeps its client', async () => {
  const [heightA, heightB] = await Promise.all([directHeight(nodeA), directHeight(nodeB)]);
  expect(heightA).toBe(heightB + 2);
  const client = new Client(`ws://127.0.0.1:${proxy.port}`);
  await client.opened();
  try {
    expect(await height(client)).toBe(heightA);
    expect((await client.call('system_name')).result).toEqual(expect.any(String));
    expect(((await client.send<Answer[]>(batchOf(5))) as Answer[]).every((answer) => answer.result)).toBe(true);

    // Calls keep going on the same socket while the proxy reloads.
    const answered: Answer[] = [];
    let going = true;
    const traffic = (async () => {
      while (going && !client.closed)
        answered.push(await client.call('state_getStorage', ['0x26aa394eea5630e07c48ae0c9558cef702a5c1b19ab7a04f536c519aca4983ac']));
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    write({ upstreams: [nodeB.wsUrl], healthIntervalMs: 500, maxBatchSize: 4, denyMethods: ['system_name'], pingIntervalMs: 20_000 });
    const log = await reload('proxy config reloaded');
    expect(log).toContain('change on a restart only');
    expect(log).toContain('"pingIntervalMs"');
    expect(await height(client)).toBe(heightB);
    await new Promise((resolve) => setTimeout(resolve, 300));
    going = false;
    await traffic;
    expect(answered.length).toBeGreaterThan(5);
    expect(answered.filter((answer) => answer.error)).toEqual([]);
    // Reads of "latest" state follow the new node too.
    expect(Buffer.from(String(answered.at(-1)?.result).slice(2), 'hex').readUInt32LE(0)).toBe(heightB);

    // The new limit and method list hold from the next call on.
    const batch = (await client.send(batchOf(5))) as Answer;
    expect(batch.error?.code).toBe(-32010);
    expect(((await client.send<Answer[]>(batchOf(4))) as Answer[]).every((answer) => answer.result)).toBe(true);
    expect((await client.call('system_name')).error?.code).toBe(-32601);
    // Node A is let go of: no longer used, nor shown.
    const shown = await metrics();
    expect(shown).toContain(`proxy_upstream_available{upstream="${nodeB.wsUrl}"} 1`);
    expect(shown).not.toContain(`upstream="${nodeA.wsUrl}"`);
    expect(client.closed).toBe(false);
  } finally {
    client.close();
  }
}, 120_000);

it('refuses a bad config with a log line and keeps the running one', async () => {
  const client = new Client(`ws://127.0.0.1:${proxy.port}`);
  await client.opened();
  try {
    write({ upstreams: [nodeB.wsUrl], healthIntervalMs: 500, maxBatchSize: 4 });
    await reload('proxy config reloaded');
    const heightB = await directHeight(nodeB);
    for (const bad of [
      '{"upstreams": ["ws://',
      { upstreams: ['ftp://node:9944'] },
      { upstream: [nodeA.wsUrl] },
      { maxBatchSize: '8', upstreams: [nodeA.wsUrl] },
      // Well formed, but no node there: the running one is better than none.
      { upstreams: ['ws://127.0.0.1:1'], timeoutMs: 2_000 },
    ]) {
      write(bad);
      const log = await reload('proxy config refused');
      expect(log).not.toContain('proxy config reloaded');
      expect(await height(client)).toBe(heightB);
      expect(((await client.send(batchOf(5))) as Answer).error?.code).toBe(-32010);
    }
    expect(client.closed).toBe(false);
  } finally {
    client.close();
  }
}, 120_000);

it('keeps the connection to a node still named: a subscription on it goes on through a reload that adds another', async () => {
  const client = new Client(`ws://127.0.0.1:${proxy.port}`);
  await client.opened();
  try {
    write({ upstreams: [nodeB.wsUrl], healthIntervalMs: 500 });
    await reload('proxy config reloaded');
    const heightB = await directHeight(nodeB);
    expect(typeof (await client.call('chain_subscribeNewHeads')).result).toBe('string');
    const until = async (check: () => boolean) => {
      const deadline = Date.now() + 15_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`no such notification: ${JSON.stringify(client.notified)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await until(() => client.notified.some((head) => parseInt(head.number, 16) === heightB));
    write({ upstreams: [nodeB.wsUrl, nodeA.wsUrl], healthIntervalMs: 500 });
    const log = await reload('proxy config reloaded');
    expect(log).toContain(`"added":["${nodeA.wsUrl}"]`);
    expect(log).toContain('"removed":[]');
    // The very upstream as before, holding the client's subscription and the proxy's own (the new heads it follows).
    expect(await metrics()).toContain(`proxy_upstream_subscriptions{upstream="${nodeB.wsUrl}"} 2`);
    // A block on node B reaches the subscription opened before the reload.
    const direct = await connectRpc(nodeB.wsUrl);
    await direct.call('dev_newBlock', [{}]);
    direct.close();
    await until(() => client.notified.some((head) => parseInt(head.number, 16) === heightB + 1));
    expect((await client.call('system_chain')).result).toEqual(expect.any(String));
    expect(client.closed).toBe(false);
  } finally {
    client.close();
  }
}, 120_000);
