// One decoding registry per runtime version, built the first time a block of
// that runtime is seen and kept: metadata never changes within a spec version.
import { Metadata, TypeRegistry } from '@polkadot/types';
import { getSpecAlias, getSpecExtensions, getSpecHasher, getSpecTypes } from '@polkadot/types-known';
import { blake2AsHex } from '@polkadot/util-crypto';
import { u8aToHex } from '@polkadot/util';

import { runtimeCodecsFor, type RuntimeCodecs, type UnsupportedFormat } from '../decode/runtimeCodecs';
import type { Hex, NodeClient, RpcRuntimeVersion } from '../rpc/nodeClient';
import { NodeError, RpcError } from '../rpc/nodeErrors';
import { wave } from '../rpc/requestStats';

export interface Runtime {
  specName: string;
  specVersion: number;
  registry: TypeRegistry;
  /** The compiled reading of its blocks, or why it has none (they are then read by polkadot.js). */
  codecs: RuntimeCodecs | UnsupportedFormat;
  hasTransactionPaymentApi: boolean;
}

const SUPPORTED_METADATA = [16, 15, 14];
const METADATA_API = blake2AsHex('Metadata', 64);
const TRANSACTION_PAYMENT_API = blake2AsHex('TransactionPaymentApi', 64);

export class RuntimeRegistry {
  private readonly runtimes = new Map<string, Promise<Runtime>>();
  /** The loaded runtime of the highest spec version: the likeliest at the head, for a guess checked later. */
  private highest?: Runtime;
  private chainProperties?: Promise<Record<string, unknown>>;
  private chainName?: Promise<string>;

  constructor(private readonly node: NodeClient) {}

  /** The runtime that decodes the block at `hash`, whose version the caller already fetched. */
  get(version: RpcRuntimeVersion, at: Hex): Promise<Runtime> {
    const key = `${version.specName}/${version.specVersion}`;
    let runtime = this.runtimes.get(key);
    if (!runtime) {
      runtime = this.load(version, at);
      this.runtimes.set(key, runtime);
      // A failed load (node lost midway) must not poison the runtime for good.
      runtime.then(
        (loaded) => {
          if (!this.highest || loaded.specVersion > this.highest.specVersion) this.highest = loaded;
        },
        () => this.runtimes.delete(key),
      );
    }
    return runtime;
  }

  /** The newest runtime loaded so far (undefined before the first): a guess, to be checked against the block's version. */
  get newest(): Runtime | undefined {
    return this.highest;
  }

  private async load(version: RpcRuntimeVersion, at: Hex): Promise<Runtime> {
    this.chainProperties ??= this.node.send<Record<string, unknown>>('system_properties', []);
    this.chainName ??= this.node.send<string>('system_chain', []);
    this.chainProperties.catch(() => (this.chainProperties = undefined));
    this.chainName.catch(() => (this.chainName = undefined));
    const [metadataHex, properties, chain] = await wave([this.fetchMetadata(version, at), this.chainProperties, this.chainName] as const);

    const registry = new TypeRegistry(at);
    const metadata = new Metadata(registry, metadataHex);
    registry.setChainProperties(registry.createType('ChainProperties', properties));
    const chainText = registry.createType('Text', chain);
    const specName = registry.createType('Text', version.specName);
    registry.register(getSpecTypes(registry, chainText, specName, version.specVersion));
    registry.setHasher(getSpecHasher(registry, chainText, specName));
    if (registry.knownTypes.typesBundle) registry.knownTypes.typesAlias = getSpecAlias(registry, chainText, specName);
    registry.setMetadata(metadata, undefined, getSpecExtensions(registry, chainText, specName), true);
    return {
      specName: version.specName,
      specVersion: version.specVersion,
      registry,
      codecs: runtimeCodecsFor(registry, metadata.version),
      hasTransactionPaymentApi: version.apis.some(([id]) => id === TRANSACTION_PAYMENT_API),
    };
  }

  /** The newest metadata version both the runtime and polkadot.js support, as polkadot.js itself picks. */
  private async fetchMetadata(version: RpcRuntimeVersion, at: Hex): Promise<Hex> {
    const metadataApi = version.apis.find(([id]) => id === METADATA_API);
    if (!metadataApi || metadataApi[1] < 2) return this.node.getMetadata(at);
    const scratch = new TypeRegistry();
    try {
      const versions = scratch.createType('Vec<u32>', await this.node.call('Metadata_metadata_versions', '0x', at));
      const best = versions.map((v) => v.toNumber()).filter((v) => SUPPORTED_METADATA.includes(v));
      if (best.length === 0) return this.node.getMetadata(at);
      const chosen = scratch.createType('u32', Math.max(...best));
      const raw = await this.node.call('Metadata_metadata_at_version', u8aToHex(chosen.toU8a()), at);
      const opaque = scratch.createType('Option<OpaqueMetadata>', scratch.createType('Raw', raw).toU8a());
      return opaque.isSome ? opaque.unwrap().toHex() : this.node.getMetadata(at);
    } catch (error) {
      // The runtime's own refusal, or an answer it cannot read: the older form, for good. A call that
      // never got its answer (timed out, node lost or limiting) is the load's failure, tried again by
      // the next read: settling for the older form then lost the runtime APIs (DryRunApi ...) for the
      // process's life.
      if (error instanceof NodeError && !(error instanceof RpcError)) throw error;
      return this.node.getMetadata(at);
    }
  }
}
