// The runtime's code (the `:code` storage item, megabytes) at a block, kept per runtime
// version: a second request at any block of the same runtime asks the node nothing for
// it. The code cannot change without its runtime version changing, but in theory:
// frame_system's set_code refuses code whose spec_version is not higher (or whose
// spec_name differs); only a root call of set_code_without_checks, or a raw storage
// write, could swap it in place. Keying by the code's own storage hash would cover that
// too, at a call per request, and not every node offers state_getStorageHash (chopsticks
// does not): docs/differences.md says what was measured.
import type { SingleFlight } from '../../cache/singleFlight';
import type { TieredCache } from '../../cache/tieredCache';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import type { ReadAt } from '../shared/at/blockAt';

export const CODE_KEY: Hex = '0x3a636f6465';

const codeKey = (block: ReadAt) => `code:${block.version.specName}:${block.version.specVersion}:${block.version.implVersion}`;

/** The JSON text of "no code at this block", kept like any other answer. */
const NONE = 'null';

export class RuntimeCode {
  constructor(
    private readonly node: NodeClient,
    private readonly cache: TieredCache,
    /** Shared by every request: fetches of the same runtime's code in flight. */
    private readonly fetches: SingleFlight<string>,
  ) {}

  /** The code at `block` as hex, null when the block has none. */
  async at(block: ReadAt): Promise<Hex | null> {
    const key = codeKey(block);
    const kept = await this.cache.get(key);
    if (kept !== undefined) return kept === NONE ? null : (kept as Hex);
    const text = await this.fetches.run(key, async () => {
      const code = await this.node.getStorage(CODE_KEY, block.hash);
      const value = code ?? NONE;
      if (this.cache.canKeep(value.length)) this.cache.set(key, value);
      return value;
    }).promise;
    return text === NONE ? null : (text as Hex);
  }
}
