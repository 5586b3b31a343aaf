// A runtime's metadata as the routes that show it need it (/transaction/material and
// /runtime/metadata): as the node's metadata RPC gives it, or at one of the versions the
// runtime offers, as SCALE hex or as sidecar's JSON. Metadata is the same for every
// block of a runtime version, and its JSON costs a second or so of CPU to build: each
// form is built once per runtime, kept in the cache, and built once however many
// requests ask for it at the same time.
import { Metadata, TypeRegistry } from '@polkadot/types';
import { u8aToHex } from '@polkadot/util';

import type { SingleFlight } from '../cache/singleFlight';
import type { TieredCache } from '../cache/tieredCache';
import { toSidecarJson } from '../decode/codecJson';
import { NotAtThisBlockError } from '../errors';
import type { Hex, NodeClient } from '../rpc/nodeClient';
import type { ReadAt } from './shared/at/blockAt';

export type MetadataForm = 'json' | 'scale';

/** `rpc`: what state_getMetadata gives (the runtime's default version); a number: that version through the Metadata API. */
export type MetadataVersion = number | 'rpc';

/** The metadata of a runtime version, at a version, in a form: the same at every block of the runtime. */
export const metadataKey = (block: ReadAt, form: MetadataForm, version: MetadataVersion) =>
  `md:${block.version.specName}:${block.version.specVersion}:${version}:${form}`;

const versionsKey = (block: ReadAt) => `mdv:${block.version.specName}:${block.version.specVersion}`;

/** A node's answer that the runtime has no such method (its Metadata API is older than version 2). */
const NO_METHOD = /not found|does not exist|unknown/i;

function noVersionsOrRethrow(error: unknown): never {
  if (error instanceof Error && NO_METHOD.test(error.message)) {
    throw new NotAtThisBlockError('The runtime at this block offers no metadata versions (its Metadata API is older than version 2).');
  }
  throw error;
}

function readMetadata(hex: Hex, renamed: boolean): Metadata {
  const metadata = new Metadata(new TypeRegistry(), hex);
  // polkadot.js renames while converting to its latest form, on the types the metadata it converts holds.
  if (renamed) void metadata.asLatest;
  return metadata;
}

export class RuntimeMetadata {
  constructor(
    private readonly node: NodeClient,
    private readonly cache: TieredCache,
    /** Shared by every request: builds of the same runtime's metadata in flight. */
    private readonly builds: SingleFlight<string>,
  ) {}

  /**
   * The metadata at `block` as JSON text: a hex string for `scale`, sidecar's JSON of polkadot.js's reading for `json`.
   * `renamed`: with the names polkadot.js gives some pallets' types when it converts metadata older than v14
   * (Babe's `EquivocationProof` is `BabeEquivocationProof`), as sidecar's /transaction/material writes it
   * (its /runtime/metadata writes the names the metadata holds). v14 and later have nothing to rename.
   */
  async text(block: ReadAt, form: MetadataForm, version: MetadataVersion, renamed = false): Promise<string> {
    const renaming = renamed && form === 'json';
    const key = `${metadataKey(block, form, version)}${renaming ? ':renamed' : ''}`;
    const kept = await this.cache.get(key);
    if (kept) return kept;
    return this.builds.run(key, async () => {
      const hex = version === 'rpc' ? await this.node.getMetadata(block.hash) : await this.atVersion(block.hash, version);
      const text = form === 'scale' ? JSON.stringify(hex) : JSON.stringify(toSidecarJson(readMetadata(hex, renaming)));
      if (this.cache.canKeep(text.length)) this.cache.set(key, text);
      return text;
    }).promise;
  }

  /** The metadata versions the runtime at `block` offers, oldest first. */
  async versions(block: ReadAt): Promise<number[]> {
    const key = versionsKey(block);
    const kept = await this.cache.get(key);
    if (kept) return JSON.parse(kept) as number[];
    const raw = await this.node.call('Metadata_metadata_versions', '0x', block.hash).catch(noVersionsOrRethrow);
    const offered = new TypeRegistry().createType('Vec<u32>', raw).map((v) => v.toNumber());
    this.cache.set(key, JSON.stringify(offered));
    return offered;
  }

  /**
   * One version's metadata, in one call: the runtime answers `None` for a version it does
   * not offer, so its list of versions need not be asked first.
   */
  private async atVersion(hash: Hex, version: number): Promise<Hex> {
    // A version no u32 holds is offered by no runtime (and cannot be asked for).
    if (version > 0xffff_ffff) throw new NotAtThisBlockError(`Version ${version} of Metadata is not available.`);
    const registry = new TypeRegistry();
    const raw = await this.node.call('Metadata_metadata_at_version', u8aToHex(registry.createType('u32', version).toU8a()), hash).catch(noVersionsOrRethrow);
    const opaque = registry.createType('Option<OpaqueMetadata>', registry.createType('Raw', raw).toU8a());
    if (opaque.isNone) throw new NotAtThisBlockError(`Version ${version} of Metadata is not available.`);
    return opaque.unwrap().toHex();
  }
}
