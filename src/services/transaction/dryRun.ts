// A call dry-run as a sender (sidecar 20's POST /transaction/dry-run): the runtime's
// DryRunApi_dry_run_call(origin, call, result_xcms_version) at the block `at` names,
// answered as `{at, result: {resultType, result}}`. The call and the sender are read
// with the runtime's registry before the node is asked (at a head just moved, with the
// newest runtime's, beside the ask for the head's version). The XCM version the results
// are written in is the chain's own safe version (pallet-xcm's SafeXcmVersion), read
// in the same wave as the dry run: the version last read is sent, and the run made
// again in the rare case the chain's changed since (see safeXcmVersion.ts).
import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';

import type { TieredCache } from '../../cache/tieredCache';
import { toSidecarJson, type JsonValue } from '../../decode/codecJson';
import { badRequest, TransactionError } from '../../errors';
import type { Hex, NodeClient } from '../../rpc/nodeClient';
import { NodeRpcError } from '../../rpc/nodeErrors';
import { wave } from '../../rpc/requestStats';
import { atJson, fetchVersion, knownVersion, readResolvedAt, type AtBlock, type RuntimeVersionJson } from '../shared/at/blockAt';
import type { BlockIds } from '../shared/at/blockIds';
import type { RuntimeRegistry } from '../runtimes';
import type { SafeXcmVersions } from './safeXcmVersion';

const CANNOT_DRY_RUN = 'Unable to dry-run transaction';

export interface DryRunRequest {
  /** The call, SCALE-encoded (not a signed extrinsic). */
  call: Hex;
  sender: string;
  at: AtBlock;
  /** The XCM version the client asks the results in; the chain's safe version when absent. */
  xcmVersion?: number;
  /** The body's `tx` as sent, for errors. */
  sent: unknown;
}

/** The runtime's dry_run_call as its metadata declares it: argument and answer types. */
interface DryRunCallShape {
  origin: number;
  call: number;
  /** Present from DryRunApi v2: the XCM version results are written in. */
  xcmVersion?: number;
  output: number;
}

function dryRunCallOf(registry: TypeRegistry): DryRunCallShape | undefined {
  const api = registry.metadata.apis.find((entry) => entry.name.toString() === 'DryRunApi');
  if (!api) throw badRequest('DryRunApi not found in metadata.');
  const method = api.methods.find((entry) => entry.name.toString() === 'dry_run_call');
  if (!method) throw badRequest('dryRunCall not found in metadata.');
  const input = (name: string) => method.inputs.find((entry) => entry.name.toString() === name)?.type.toNumber();
  const origin = input('origin');
  const call = input('call');
  if (origin === undefined || call === undefined) return undefined;
  return { origin, call, xcmVersion: input('result_xcms_version'), output: method.output.toNumber() };
}

const lookup = (registry: TypeRegistry, id: number, value: unknown): Codec => registry.createTypeUnsafe(registry.createLookupType(id), [value]);

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The answer's `result`: sidecar's three outcomes of the run. */
function resultOf(answer: Codec): { resultType: string; result: JsonValue } {
  const outer = answer as unknown as { isOk: boolean; asOk: Codec; asErr: Codec };
  if (!outer.isOk) return { resultType: 'InvalidTransaction', result: toSidecarJson(outer.asErr) };
  const effects = outer.asOk as unknown as { get(name: string): Codec | undefined };
  const execution = effects.get('executionResult') as unknown as { isOk: boolean; asOk: Codec; asErr: Codec };
  return execution.isOk
    ? { resultType: 'DispatchOutcome', result: toSidecarJson(execution.asOk) }
    : { resultType: 'DispatchError', result: toSidecarJson(execution.asErr) };
}

/** The call as the runtime reads it, ready to be run: the API's shape and the origin and call bytes. */
interface PreparedRun {
  shape: DryRunCallShape;
  head: Uint8Array;
}

type Settled<T> = { made: T } | { failed: unknown };

export class DryRuns {
  constructor(
    private readonly node: NodeClient,
    private readonly ids: BlockIds,
    private readonly cache: TieredCache,
    private readonly runtimes: RuntimeRegistry,
    private readonly xcmVersions: SafeXcmVersions,
  ) {}

  /**
   * The answer as JSON text, in one wave once the chain's safe XCM version has been seen. At the
   * finalized head (no `at`) just after it moved, whose runtime version is not known yet, the run is
   * made with the newest runtime loaded beside the ask for that version, and made again in the rare
   * case the block's runtime is another: the fee estimate's guess. A block `at` names is run with its
   * own runtime only: a client going through history would otherwise pay a run made with the wrong
   * one at every block of an older runtime.
   */
  async dryRun(request: DryRunRequest): Promise<string> {
    const resolved = await this.ids.at(request.at);
    const { hash, number } = resolved;
    if (request.at !== 'finalized' || number === undefined) {
      const block = await readResolvedAt(this.node, this.cache, resolved);
      return this.atRuntime(block.version, block, request);
    }
    const block = { hash, number };
    const known = await knownVersion(this.cache, block.hash);
    if (known) return this.atRuntime(known, block, request);
    const guess = this.runtimes.newest;
    const prepared = guess && this.preparedOrNothing(guess.registry, request, block.hash);
    if (!guess || !prepared) return this.atRuntime(await fetchVersion(this.node, this.cache, block.hash), block, request);
    const guessed: Promise<Settled<string>> = this.ran(guess.registry, prepared, block, request).then(
      (made) => ({ made }),
      (failed: unknown) => ({ failed }),
    );
    const [version, answer] = await wave([fetchVersion(this.node, this.cache, block.hash), guessed] as const);
    const runtime = await this.runtimes.get(version, block.hash);
    if (runtime.specName !== guess.specName || runtime.specVersion !== guess.specVersion) return this.atRuntime(version, block, request);
    if ('failed' in answer) throw answer.failed;
    return answer.made;
  }

  /** The run with the runtime of `version`, the block's own. */
  private async atRuntime(version: RuntimeVersionJson, block: { hash: Hex; number: number }, request: DryRunRequest): Promise<string> {
    const { registry } = await this.runtimes.get(version, block.hash);
    return this.ran(registry, this.prepared(registry, request, block.hash), block, request);
  }

  /** The call and sender read with `registry`; a 400 naming the block when it cannot read them. */
  private prepared(registry: TypeRegistry, request: DryRunRequest, hash: Hex): PreparedRun {
    const shape = dryRunCallOf(registry);
    if (!shape) throw badRequest('dryRunCall not found in metadata.');
    try {
      const origin = lookup(registry, shape.origin, { System: { Signed: request.sender } });
      const bytes = hexToU8a(request.call);
      const call = lookup(registry, shape.call, bytes);
      if (call.encodedLength !== bytes.length) {
        throw new Error(`The call takes ${call.encodedLength} bytes of the ${bytes.length} sent: the rest is not part of it.`);
      }
      return { shape, head: u8aConcat(origin.toU8a(), bytes) };
    } catch (error) {
      throw new TransactionError(CANNOT_DRY_RUN, request.sent, messageOf(error), { hash });
    }
  }

  /** The same with a guessed runtime: nothing when it cannot read them (the block's own runtime is asked then). */
  private preparedOrNothing(registry: TypeRegistry, request: DryRunRequest, hash: Hex): PreparedRun | undefined {
    try {
      return this.prepared(registry, request, hash);
    } catch {
      return undefined;
    }
  }

  /** The run at `block` with `registry`, and its answer as JSON text. */
  private async ran(registry: TypeRegistry, { shape, head }: PreparedRun, block: { hash: Hex; number: number }, request: DryRunRequest): Promise<string> {
    const at = { hash: block.hash };
    const run = (version: number | undefined) => {
      const args = shape.xcmVersion === undefined ? head : u8aConcat(head, registry.createType('u32', version ?? 0).toU8a());
      return this.node.call('DryRunApi_dry_run_call', u8aToHex(args), block.hash);
    };
    let answer: Hex;
    try {
      answer = await this.runWithVersion(registry, block.hash, shape, request.xcmVersion, run);
    } catch (error) {
      if (error instanceof NodeRpcError) throw new TransactionError(CANNOT_DRY_RUN, request.sent, error.message, at);
      throw error;
    }
    let result: { resultType: string; result: JsonValue };
    try {
      result = resultOf(lookup(registry, shape.output, hexToU8a(answer)));
    } catch (error) {
      throw new TransactionError(CANNOT_DRY_RUN, request.sent, messageOf(error), at);
    }
    return JSON.stringify({ at: atJson(block), result });
  }

  /** The run, with the client's XCM version, else the chain's: guessed from the last read and checked in the same wave. */
  private async runWithVersion(
    registry: TypeRegistry,
    hash: Hex,
    shape: DryRunCallShape,
    asked: number | undefined,
    run: (version: number | undefined) => Promise<Hex>,
  ): Promise<Hex> {
    if (shape.xcmVersion === undefined || asked !== undefined) return run(asked);
    const guess = this.xcmVersions.lastSeen;
    if (guess === undefined) return run(await this.xcmVersions.read(this.node, registry, hash));
    // A failure of the guessed run is only the answer if the guess was right.
    const guessed = run(guess).catch((error: unknown) => ({ failed: error }));
    const [answer, version] = await wave([guessed, this.xcmVersions.read(this.node, registry, hash)] as const);
    if (version !== guess) return run(version);
    if (typeof answer === 'object') throw answer.failed;
    return answer;
  }
}
