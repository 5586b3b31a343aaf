// The transaction extensions of a runtime, as an extrinsic carries them: for
// each extension version the metadata lists (v16 `transaction_extensions_by_version`;
// older metadata has one list, version 0), the extensions in order, each with
// its decoder and what it tells a reader of the block. What an extension
// tells is recognised by its type, wherever it sits in the list: the era, the
// nonce, the tip, the asset a fee is paid in, and the signature a signing
// extension (VerifySignature) carries in a general (v5) transaction.
import type { TypeRegistry } from '@polkadot/types';
import type { Si1Type } from '@polkadot/types/interfaces';

import { IMMORTAL_ERA, type Decoder, type TypeCompiler } from './compile';
import type { JsonValue } from './json';
import { DecodeError } from './reader';

/** What a transaction's extensions say, as sidecar prints the same facts of a v4 extrinsic. */
export interface ExtensionFacts {
  era: JsonValue;
  nonce: JsonValue;
  tip: JsonValue;
  /** The asset the fee is paid in (null: the native token, or no such extension). */
  assetId: JsonValue;
  /** From a signing extension: `{ signer, signature }`, or null (none, or disabled). */
  signature: { signature: JsonValue; signer: JsonValue } | null;
}

type Role = 'era' | 'nonce' | 'tip' | 'assetPayment' | 'signing' | 'other';

interface ExtensionReader {
  identifier: string;
  role: Role;
  decode: Decoder;
}

/** The identifiers sidecar (through polkadot.js) reads these facts from, for types named otherwise. */
const ROLE_BY_IDENTIFIER: Record<string, Role> = {
  CheckMortality: 'era',
  CheckEra: 'era',
  CheckNonce: 'nonce',
  ChargeTransactionPayment: 'tip',
  ChargeAssetTxPayment: 'assetPayment',
};

export class TransactionExtensions {
  private readonly byVersion = new Map<number, ExtensionReader[]>();

  constructor(
    private readonly registry: TypeRegistry,
    private readonly compiler: TypeCompiler,
    private readonly variantPayload: (value: JsonValue) => JsonValue,
    /** Whether the metadata lists extension versions itself (v16 on). */
    listsVersions: boolean,
  ) {
    const { extrinsic } = registry.metadata;
    const all = [...extrinsic.transactionExtensions];
    const readers = all.map((extension) => this.readerOf(extension.identifier.toString(), extension.type.toNumber()));
    // Metadata before v16 has one list, version 0 (polkadot.js's conversion files it under
    // the extrinsic version instead).
    const listed = listsVersions ? [...extrinsic.transactionExtensionsByVersion.entries()] : [];
    if (listed.length === 0) this.byVersion.set(0, readers);
    for (const [version, indices] of listed) {
      this.byVersion.set(
        version.toNumber(),
        indices.map((index) => {
          const reader = readers[index.toNumber()];
          if (!reader) throw new DecodeError(`extension version ${version.toNumber()} names extension ${index.toNumber()} of ${readers.length}`);
          return reader;
        }),
      );
    }
  }

  /** The extension versions the metadata lists. */
  get versions(): number[] {
    return [...this.byVersion.keys()];
  }

  /** The extensions of `version` in order, or undefined when the metadata lists no such version. */
  list(version: number): readonly ExtensionReader[] | undefined {
    return this.byVersion.get(version);
  }

  /** Reads one version's extensions from the reader, in order. */
  read(reader: Parameters<Decoder>[0], version: number): ExtensionFacts {
    const list = this.byVersion.get(version);
    if (!list) throw new DecodeError(`no transaction extension version ${version} in the metadata`);
    // As polkadot.js prints a v4 extrinsic whose extensions lack these: immortal, nonce and tip 0.
    const facts: ExtensionFacts = { era: IMMORTAL_ERA, nonce: '0', tip: '0', assetId: null, signature: null };
    for (const extension of list) {
      const value = extension.decode(reader);
      switch (extension.role) {
        case 'era':
          facts.era = value;
          break;
        case 'nonce':
          facts.nonce = value;
          break;
        case 'tip':
          facts.tip = value;
          break;
        case 'assetPayment':
          if (isRecord(value)) {
            facts.tip = value.tip ?? '0';
            facts.assetId = value.assetId ?? null;
          } else {
            facts.tip = value;
          }
          break;
        case 'signing':
          facts.signature = value as ExtensionFacts['signature'];
          break;
      }
    }
    return facts;
  }

  private readerOf(identifier: string, type: number): ExtensionReader {
    const role = this.roleOf(type) ?? ROLE_BY_IDENTIFIER[identifier] ?? 'other';
    const decode = role === 'signing' ? this.signingDecoder(type) : this.compiler.decoderOf(type);
    return { identifier, role, decode };
  }

  /** What an extension's type says it carries; undefined when the type does not tell. */
  private roleOf(type: number): Role | undefined {
    const siType = this.registry.lookup.getSiType(type);
    const path = siType.path.map((segment) => segment.toString()).join('::');
    if (signedVariant(siType)) return 'signing';
    if (path.endsWith('::CheckNonce')) return 'nonce';
    if (path.endsWith('::ChargeTransactionPayment')) return 'tip';
    if (siType.def.isComposite) {
      const names = siType.def.asComposite.fields.map((field) => field.name.unwrapOr('').toString());
      if (names.includes('tip') && names.includes('asset_id')) return 'assetPayment';
    }
    if (this.isEra(siType)) return 'era';
    return undefined;
  }

  /** An era, or a wrapper of one field around an era (CheckMortality). */
  private isEra(siType: Si1Type): boolean {
    for (let current = siType, depth = 0; depth < 4; depth++) {
      if (current.path.map((segment) => segment.toString()).join('::') === 'sp_runtime::generic::era::Era') return true;
      if (!current.def.isComposite || current.def.asComposite.fields.length !== 1) return false;
      current = this.registry.lookup.getSiType(current.def.asComposite.fields[0].type);
    }
    return false;
  }

  /**
   * A signing extension: `Signed { signature, account }` or a variant without data
   * (`Disabled`). Read as a v4 signature is shown: the signature without its
   * scheme's name, and the account as the signer's `{ id }`.
   */
  private signingDecoder(type: number): Decoder {
    const siType = this.registry.lookup.getSiType(type);
    const signed = signedVariant(siType)!;
    const fieldType = (name: string) => signed.fields.find((field) => field.name.unwrapOr('').toString() === name)!.type.toNumber();
    const signatureOf = this.compiler.decoderOf(fieldType('signature'));
    const accountOf = this.compiler.decoderOf(fieldType('account'));
    const signedIndex = signed.index.toNumber();
    const empty = new Set(siType.def.asVariant.variants.filter((variant) => variant.fields.length === 0).map((variant) => variant.index.toNumber()));
    return (reader) => {
      const tag = reader.u8();
      if (tag === signedIndex) {
        const signature = this.variantPayload(signatureOf(reader));
        const account = accountOf(reader);
        return { signer: typeof account === 'string' ? { id: account } : account, signature };
      }
      if (empty.has(tag)) return null;
      throw new DecodeError(`no variant ${tag} in a signing extension`);
    };
  }
}

/** The `Signed { signature, account }` variant of a signing extension's type, if it is one. */
function signedVariant(siType: Si1Type) {
  if (!siType.def.isVariant) return undefined;
  const { variants } = siType.def.asVariant;
  const signed = variants.find((variant) => {
    const names = variant.fields.map((field) => field.name.unwrapOr('').toString());
    return names.length === 2 && names.includes('signature') && names.includes('account');
  });
  // Every other variant must carry nothing (Disabled): otherwise it is some other enum.
  if (!signed || variants.some((variant) => variant !== signed && variant.fields.length > 0)) return undefined;
  return signed;
}

function isRecord(value: JsonValue): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
