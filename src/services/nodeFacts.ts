// What a node says of itself and of its chain, which does not change while it runs:
// the chain's name, type and properties (the same genesis, the same chain), and the
// node's version (asked again after each reconnect: a restarted node may be a newer
// one). Asked once and shared by every request; a failed ask is asked again.
import type { NodeClient } from '../rpc/nodeClient';
import { RpcError } from '../rpc/nodeErrors';
import { RpcCode } from '../rpc/rpcCodes';

type Fact = 'system_chain' | 'system_chainType' | 'system_properties' | 'system_version';

export class NodeFacts {
  private readonly known = new Map<Fact, { connection: number; value: Promise<unknown> }>();

  constructor(private readonly node: NodeClient) {}

  chain(): Promise<string> {
    return this.fact('system_chain') as Promise<string>;
  }

  /**
   * As the node writes it: `"Live"`, `"Development"`, `"Local"` or `{"Custom": name}`. A node
   * (or a provider's method list) without `system_chainType` runs a chain nobody marked as a
   * test one: `"Live"`, as polkadot.js and its apps take it, rather than no answer at all.
   */
  chainType(): Promise<unknown> {
    return this.fact('system_chainType', false, (error) => (isMethodNotFound(error) ? 'Live' : undefined));
  }

  properties(): Promise<Record<string, unknown>> {
    return this.fact('system_properties') as Promise<Record<string, unknown>>;
  }

  version(): Promise<string> {
    return this.fact('system_version', true) as Promise<string>;
  }

  private fact(method: Fact, perConnection = false, fallbackFor?: (error: unknown) => unknown): Promise<unknown> {
    const connection = perConnection ? this.node.connection : 0;
    const held = this.known.get(method);
    if (held && held.connection === connection) return held.value;
    const asked = this.node.send<unknown>(method, []);
    const value = fallbackFor
      ? asked.catch((error: unknown) => {
          const fallback = fallbackFor(error);
          if (fallback === undefined) throw error;
          return fallback;
        })
      : asked;
    this.known.set(method, { connection, value });
    value.catch(() => {
      if (this.known.get(method)?.value === value) this.known.delete(method);
    });
    return value;
  }
}

/** The node (or a list of methods in front of it) does not offer the method at all. */
function isMethodNotFound(error: unknown): boolean {
  return error instanceof RpcError && (error.code === RpcCode.methodNotFound || /method not (found|allowed|supported)/i.test(error.message));
}
