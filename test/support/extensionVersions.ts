// A runtime metadata (v16) with a second transaction extension version, made
// from the devnet's: the devnet runtime offers version 0 only and has no
// signing extension, while runtimes such as Polkadot Asset Hub offer [0, 1]
// and current FRAME has `VerifySignature`. The patch adds a `VerifySignature`
// type (`Signed { signature: MultiSignature, account: AccountId32 }` or
// `Disabled`, as pallet-verify-signature defines it) and lists version 1 as
// that extension first and some of version 0's in another order. Version 0 is
// left as it is, so a v4 extrinsic must read the same under both metadata.
import { Metadata, TypeRegistry } from '@polkadot/types';

import { RuntimeCodecs } from '../../src/decode/runtimeCodecs';

/** Version 1's list, by identifier: the signing extension first, then version 0's with data, reordered. */
export const VERSION_1 = ['VerifySignature', 'CheckNonce', 'ChargeAssetTxPayment', 'CheckMortality', 'AuthorizeCall', 'CheckMetadataHash', 'CheckWeight'];

interface SiTypeJson {
  id: number;
  type: { path: string[]; params: unknown[]; def: Record<string, unknown>; docs: string[] };
}

export interface PatchedRuntime {
  registry: TypeRegistry;
  codecs: RuntimeCodecs;
  /** The type index of the added VerifySignature. */
  verifySignatureType: number;
  metadataHex: string;
}

/** The devnet runtime's metadata with extension version 1 added, read as the service reads a runtime. */
export function withSecondExtensionVersion(original: TypeRegistry): PatchedRuntime {
  const latest = original.metadata.toJSON() as unknown as {
    lookup: { types: SiTypeJson[] };
    extrinsic: {
      signatureType: number;
      transactionExtensions: { identifier: string; type: number; implicit: number }[];
      transactionExtensionsByVersion: Record<string, number[]>;
    };
  };
  const types = latest.lookup.types;
  const idOf = (path: string) => {
    const found = types.find((entry) => entry.type.path.join('::') === path);
    if (!found) throw new Error(`no type ${path} in the devnet metadata`);
    return found.id;
  };
  const verifySignatureType = types.length;
  types.push({
    id: verifySignatureType,
    type: {
      path: ['pallet_verify_signature', 'extension', 'VerifySignature'],
      params: [],
      def: {
        variant: {
          variants: [
            {
              name: 'Signed',
              fields: [
                { name: 'signature', type: latest.extrinsic.signatureType, typeName: 'MultiSignature', docs: [] },
                { name: 'account', type: idOf('sp_core::crypto::AccountId32'), typeName: 'AccountId', docs: [] },
              ],
              index: 0,
              docs: [],
            },
            { name: 'Disabled', fields: [], index: 1, docs: [] },
          ],
        },
      },
      docs: [],
    },
  });
  const extensions = latest.extrinsic.transactionExtensions;
  const empty = extensions.find((extension) => extension.identifier === 'CheckWeight')!.implicit;
  extensions.push({ identifier: 'VerifySignature', type: verifySignatureType, implicit: empty });
  const indexOf = (identifier: string) => extensions.findIndex((extension) => extension.identifier === identifier);
  latest.extrinsic.transactionExtensionsByVersion = {
    ...latest.extrinsic.transactionExtensionsByVersion,
    1: VERSION_1.map(indexOf),
  };

  const metadataHex = new Metadata(new TypeRegistry(), { magicNumber: 0x6174656d, metadata: { v16: latest } } as never).toHex();
  // As src/services/runtimes.ts sets up a runtime's registry.
  const registry = new TypeRegistry();
  const metadata = new Metadata(registry, metadataHex);
  registry.setChainProperties(original.getChainProperties());
  registry.setMetadata(metadata, undefined, undefined, true);
  return { registry, codecs: new RuntimeCodecs(registry, metadata.version), verifySignatureType, metadataHex };
}
