// `useEvmFormat=true`: in the events a `revive` call emitted (pallet-revive, the EVM
// of Asset Hub), accounts are shown as the 20-byte addresses the EVM knows them by.
// pallet-revive maps an account to its address this way: an account derived from an
// Ethereum key (20 bytes followed by twelve 0xEE) gives back those 20 bytes; any
// other gives the last 20 bytes of its keccak-256 hash.
import { decodeAddress, keccakAsU8a } from '@polkadot/util-crypto';

import { hexOfBytes } from '../../decode/hex';
import type { JsonValue } from '../../decode/json';

const SS58_SHAPE = /^[1-9A-HJ-NP-Za-km-z]{46,50}$/;

/** The EVM address of an ss58 account, or undefined for a string that is not one. */
export function evmAddressOf(text: string): string | undefined {
  if (!SS58_SHAPE.test(text)) return undefined;
  let account: Uint8Array;
  try {
    account = decodeAddress(text);
  } catch {
    return undefined;
  }
  if (account.length !== 32) return undefined;
  const ethDerived = account.subarray(20).every((byte) => byte === 0xee);
  return hexOfBytes(ethDerived ? account.subarray(0, 20) : keccakAsU8a(account, 256).subarray(12));
}

function converted(value: JsonValue): JsonValue {
  if (typeof value === 'string') return evmAddressOf(value) ?? value;
  if (Array.isArray(value)) return value.map(converted);
  if (value && typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) out[key] = converted(item as JsonValue);
    return out;
  }
  return value;
}

interface ExtrinsicLike {
  method?: { pallet?: string };
  events?: { method?: { pallet?: string }; data?: JsonValue }[];
}

const isRevive = (item: { method?: { pallet?: string } }) => item.method?.pallet === 'revive';

/** A block (or extrinsic) answer's JSON with revive calls' revive events in EVM form; unchanged when it has none. */
export function withEvmAddresses(json: string): string {
  if (!json.includes('"pallet":"revive"')) return json;
  const body = JSON.parse(json) as { extrinsics?: ExtrinsicLike[] | ExtrinsicLike };
  const extrinsics = Array.isArray(body.extrinsics) ? body.extrinsics : body.extrinsics ? [body.extrinsics] : [];
  let touched = false;
  for (const extrinsic of extrinsics) {
    if (!isRevive(extrinsic)) continue;
    for (const event of extrinsic.events ?? []) {
      if (isRevive(event) && event.data !== undefined) {
        event.data = converted(event.data);
        touched = true;
      }
    }
  }
  // Re-serializing would reorder integer-like object keys: only an answer that changed is rewritten.
  return touched ? JSON.stringify(body) : json;
}
