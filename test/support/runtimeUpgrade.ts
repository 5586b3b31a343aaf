// A second runtime for the devnet without a second build: the committed wasm,
// decompressed, with a higher spec version in its `runtime_version` section
// (what a node reports without running the code) and one doc string of its
// metadata changed in place (same length, so nothing else moves). Written to
// `:code`, it is a real upgrade as far as block decoding can tell: another
// spec version, another metadata.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decompress } from 'fzstd';

const ZSTD_PREFIX = 8; // Substrate's marker in front of a compressed runtime

function readLeb(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let next = at;
  let byte: number;
  do {
    byte = bytes[next++];
    value |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  return { value: value >>> 0, next };
}

/** Offset of the content of the custom section `name`. */
function customSection(wasm: Uint8Array, name: string): number {
  let at = 8; // magic and version
  while (at < wasm.length) {
    const id = wasm[at];
    const size = readLeb(wasm, at + 1);
    if (id === 0) {
      const nameLength = readLeb(wasm, size.next);
      if (Buffer.from(wasm.subarray(nameLength.next, nameLength.next + nameLength.value)).toString() === name) return nameLength.next + nameLength.value;
    }
    at = size.next + size.value;
  }
  throw new Error(`the runtime has no ${name} section`);
}

/** Skips a SCALE string (compact length, then bytes). */
function skipString(bytes: Uint8Array, at: number): number {
  const mode = bytes[at] & 3;
  if (mode === 0) return at + 1 + (bytes[at] >> 2);
  if (mode === 1) return at + 2 + ((bytes[at] | (bytes[at + 1] << 8)) >> 2);
  throw new Error('unexpectedly long runtime name');
}

export interface UpgradedRuntime {
  code: Uint8Array;
  specVersion: number;
}

export function upgradedDevnetRuntime(docFrom: string, docTo: string): UpgradedRuntime {
  if (Buffer.byteLength(docFrom) !== Buffer.byteLength(docTo)) throw new Error('the doc string must keep its length');
  const compressed = readFileSync(join(__dirname, '..', '..', 'devnet', 'runtime', 'asset_hub_westend_runtime.compact.compressed.wasm'));
  const code = Buffer.from(decompress(compressed.subarray(ZSTD_PREFIX)));
  const docAt = code.indexOf(Buffer.from(docFrom));
  if (docAt < 0 || code.indexOf(Buffer.from(docFrom), docAt + 1) >= 0) throw new Error(`"${docFrom}" is not in the runtime exactly once`);
  code.write(docTo, docAt);
  // RuntimeVersion: spec name, impl name, authoring version (u32), then the spec version (u32).
  const version = customSection(code, 'runtime_version');
  const specAt = skipString(code, skipString(code, version)) + 4;
  const specVersion = code.readUInt32LE(specAt) + 1;
  code.writeUInt32LE(specVersion, specAt);
  return { code, specVersion };
}
