// The few shapes the services read polkadot.js codecs by, where a runtime's metadata
// (not generated types) says what a value is.
import type { Codec } from '@polkadot/types/types';

/** A decoded struct, read field by field. */
export type Struct = Codec & { get(name: string): Codec | undefined };

/** A decoded Option. */
export type Optional = Codec & { isSome: boolean; unwrap(): Codec };

/** An unsigned integer codec as a bigint; nothing stored reads as 0. */
export function bigintOf(value: Codec | null | undefined): bigint {
  return BigInt(value?.toString() ?? '0');
}
