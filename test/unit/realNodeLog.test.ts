// Where the real node's RPC server listens, read from its log. The lines are polkadot-omni-node
// 0.24.0's own (recorded here, 2026-11-29): asked for a port that another process held on
// 127.0.0.1, it listened there on [::1] only and on a random port on 127.0.0.1, and said so
// only in this line; a start that probed the port asked for waited for an answer that never came.
// The suites now let it pick its port; `npm run devnet -- --real` refuses a taken DEVNET_PORT.
import { rpcPortIn } from '../../devnet/realNode';

const PREFIX = '2026-11-29 10:53:26 ';

describe("the real node's RPC address, from its log", () => {
  it('is the IPv4 loopback port it names, not the one asked for, when that one was taken', () => {
    expect(rpcPortIn(`${PREFIX}Running JSON-RPC server: addr=127.0.0.1:44047,[::1]:45555    \n`)).toBe(44047);
  });

  it('is the port asked for (or the one the system chose for port 0) when it was free', () => {
    expect(rpcPortIn(`${PREFIX}Running JSON-RPC server: addr=127.0.0.1:36739,[::1]:42379    \n`)).toBe(36739);
    expect(rpcPortIn(`${PREFIX}Running JSON-RPC server: addr=[::1]:42379,127.0.0.1:9944\n`)).toBe(9944);
  });

  it('is unknown until the node has said it (the runtime is compiled first)', () => {
    expect(rpcPortIn(`${PREFIX}🏷  Node name: fastcar\n${PREFIX}👤 Role: AUTHORITY\n`)).toBeUndefined();
    expect(rpcPortIn(`${PREFIX}Running JSON-RPC server: addr=[::1]:42379\n`)).toBeUndefined();
    // The log comes in chunks: a line cut inside its port is not read until the rest is in.
    expect(rpcPortIn(`${PREFIX}Running JSON-RPC server: addr=127.0.0.1:440`)).toBeUndefined();
  });
});
