// What a node says of itself and of its chain, which does not change while it runs:
// the chain's name, type and properties (the same genesis, the same chain), and the
// node's version (asked again after each reconnect: a restarted node may be a newer
// one). Asked once and shared by every request; a failed ask is asked again.
import type { NodeClient } from '../rpc/nodeClient';

type Fact = 'system_chain' | 'system_chainType' | 'system_properties' | 'system_version';

export class NodeFacts {
  private readonly known = new Map<Fact, { connection: number; value: Promise<unknown> }>();

  constructor(private readonly node: NodeClient) {}

  chain(): Promise<string> {
    return this.fact('system_chain') as Promise<string>;
  }

  /** As the node writes it: `"Live"`, `"Development"`, `"Local"` or `{"Custom": name}`. */
  chainType(): Promise<unknown> {
    return this.fact('system_chainType');
  }

  properties(): Promise<Record<string, unknown>> {
    return this.fact('system_properties') as Promise<Record<string, unknown>>;
  }

  version(): Promise<string> {
    return this.fact('system_version', true) as Promise<string>;
  }

  private fact(method: Fact, perConnection = false): Promise<unknown> {
    const connection = perConnection ? this.node.connection : 0;
    const held = this.known.get(method);
    if (held && held.connection === connection) return held.value;
    const value = this.node.send<unknown>(method, []);
    this.known.set(method, { connection, value });
    value.catch(() => {
      if (this.known.get(method)?.value === value) this.known.delete(method);
    });
    return value;
  }
}
