// `main.js proxy` runs the JSON-RPC proxy alone: its process must not hold the REST server
// (controllers, services, decoding), whose modules cost it about 4 MB of heap for nothing.
import { join } from 'node:path';

import { startProxyProcess } from '../harness/processes';

it("loads none of the REST server's modules in the proxy's process", async () => {
  // An upstream that is not there: the proxy starts and keeps trying it.
  const proxy = await startProxyProcess(['ws://127.0.0.1:9'], {}, [], { nodeArgs: ['--require', join(__dirname, 'support', 'reportModules.cjs')] });
  try {
    let printed = '';
    proxy.child.stdout?.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const deadline = Date.now() + 10_000;
    proxy.child.kill('SIGUSR2');
    while (!printed.includes('"modules"') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const line = printed.split('\n').find((one) => one.includes('"modules"')) ?? '{"modules":[]}';
    const sources = join(__dirname, '..', 'src');
    const ours = (JSON.parse(line) as { modules: string[] }).modules.filter((file) => file.startsWith(sources));
    const proxyFiles = ours.filter((file) => file.startsWith(join(sources, 'proxy')));
    expect(proxyFiles.length).toBeGreaterThan(10);
    const server = ours.filter((file) => ['server.ts', 'controllers', 'services', 'decode'].some((part) => file.startsWith(join(sources, part))));
    expect(server).toEqual([]);
  } finally {
    await proxy.stop();
  }
});
