// A node that comes up after fastcar or the proxy (a compose file starting everything at
// once, a node restarted with its host): both processes stay, say they are waiting, and
// answer from the node once it is there. Before, each ended at once with status 0 and no
// word (the reconnect timers do not hold a process open, and start-up waited on them).
import { serveStoredChain } from '../devnet/cli';
import { getJson } from '../harness/http';
import { freePort, startFastcarProcess, startProxyProcess } from '../harness/processes';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rpc(url: string, method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number } };
}

it('the proxy started before its node serves at once (-32090, health 503), then answers from the node once it is up', async () => {
  const port = await freePort();
  const proxy = await startProxyProcess([`ws://127.0.0.1:${port}`]);
  try {
    expect((await rpc(proxy.url, 'chain_getBlockHash', [0])).error?.code).toBe(-32090);
    expect((await getJson(`${proxy.url}/health`)).status).toBe(503);
    const { devnet } = await serveStoredChain(port);
    try {
      const genesis = (await rpc(devnet.httpUrl, 'chain_getBlockHash', [0])).result;
      let answer = await rpc(proxy.url, 'chain_getBlockHash', [0]);
      for (const until = Date.now() + 30_000; answer.result === undefined && Date.now() < until; answer = await rpc(proxy.url, 'chain_getBlockHash', [0]))
        await sleep(250);
      expect(answer.result).toBe(genesis);
      expect((await getJson(`${proxy.url}/health`)).status).toBe(200);
    } finally {
      await devnet.close();
    }
  } finally {
    await proxy.stop();
  }
}, 90_000);

it('fastcar started before its node waits for it (the process stays), then serves the chain', async () => {
  const port = await freePort();
  let exited: number | null = null;
  const starting = startFastcarProcess(`ws://127.0.0.1:${port}`, { FASTCAR_PREBUILD_BLOCKS: '0' }, { fromSource: true });
  starting.catch(() => undefined);
  await sleep(4_000);
  const { devnet, manifest } = await serveStoredChain(port);
  try {
    const fastcar = await starting.catch((error: unknown) => {
      exited = 1;
      throw error;
    });
    try {
      expect(exited).toBeNull();
      const header = await getJson(`${fastcar.url}/blocks/${manifest.head.number}/header`);
      expect(header.status).toBe(200);
    } finally {
      await fastcar.stop();
    }
  } finally {
    await devnet.close();
  }
}, 120_000);
