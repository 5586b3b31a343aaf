// The accounts and runtime additions to the Polkadot recording (test/fixtures/mainnet/
// polkadot-accounts.json, README.md there): blocks known by height, hash and runtime,
// the storage balance-info reads at them, system_chainType, the runtime versions as
// polkadot's source declares them, and the answers sidecar recorded for those routes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Recording } from '../../harness/recordedNode';

type Hex = `0x${string}`;
type Runtime = Recording['runtimes'][number];

export interface RecordedAnswer {
  path: string;
  /** Where in sidecar's repository the answer (and, for balances, the stored values) came from. */
  source: string;
  expected: Record<string, unknown> & { at: { hash: Hex; height: string } };
}

export interface AccountsRecording {
  chainType: unknown;
  /** specVersion -> its transaction version, and the source file that declares it. */
  runtimeVersions: Record<string, { transactionVersion: number; source: string }>;
  runtimes: (Omit<Runtime, 'metadataVersion'> & { borrowed: boolean })[];
  blocks: { number: number; hash: Hex; specVersion: number; source: string }[];
  storage: Record<Hex, Record<Hex, Hex | null>>;
  balanceInfo: (RecordedAnswer & { storedAs: string; madeUp: string[] })[];
  runtimeSpec: RecordedAnswer[];
  /** Balances at blocks of runtimes with `frozen`, none recorded anywhere: made up, with the transferable amount worked out by hand. */
  frozenEra: { path: string; madeUp: string; transferable: string }[];
}

export function loadAccountsRecording(): AccountsRecording {
  const file = join(__dirname, '..', 'fixtures', 'mainnet', 'polkadot-accounts.json');
  return JSON.parse(readFileSync(file, 'utf8')) as AccountsRecording;
}

/**
 * The recording with the additions: its runtimes' transaction versions set to what
 * polkadot's source declares (the shared recording's borrowed runtimes carry made-up
 * ones), the added blocks' runtimes appended where it has none of that spec version.
 */
export function withAccounts(base: Recording, accounts: AccountsRecording): Recording {
  const recording = structuredClone(base);
  const corrected = (runtime: Runtime): Runtime => {
    const declared = accounts.runtimeVersions[String(runtime.version.specVersion)];
    return declared ? { ...runtime, version: { ...runtime.version, transactionVersion: declared.transactionVersion } } : runtime;
  };
  recording.runtimes = recording.runtimes.map(corrected);
  const indexOf = (specVersion: number): number => {
    const found = recording.runtimes.findIndex((runtime) => runtime.version.specVersion === specVersion);
    if (found >= 0) return found;
    const added = accounts.runtimes.find((runtime) => runtime.version.specVersion === specVersion);
    const sameMetadata = recording.runtimes.find((runtime) => runtime.metadataFrom === added?.metadataFrom);
    if (!added || !sameMetadata) throw new Error(`runtime ${specVersion} is not in the recording`);
    recording.runtimes.push(corrected({ metadataFrom: added.metadataFrom, metadataVersion: sameMetadata.metadataVersion, version: added.version }));
    return recording.runtimes.length - 1;
  };
  recording.stateBlocks = accounts.blocks.map((block) => ({ number: block.number, hash: block.hash, runtime: indexOf(block.specVersion) }));
  recording.storage = accounts.storage;
  recording.chainType = accounts.chainType;
  return recording;
}
