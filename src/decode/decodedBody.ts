// A block's body as either reading gives it (the compiled codecs, or polkadot.js
// as the reference), before it is shaped into sidecar's JSON.
import type { DecodedEvent, DecodedExtrinsic } from './runtimeCodecs';

export interface DecodedBody {
  extrinsics: DecodedExtrinsic[];
  /** Each extrinsic's bytes, with its length prefix, as the block carries them. */
  extrinsicBytes: Uint8Array[];
  /** Each extrinsic's hash (blake2-256 of those bytes). */
  hashes: string[];
  /** null when the node could not give the events (pruned state). */
  events: DecodedEvent[] | null;
}
