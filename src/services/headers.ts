// One reading of headers for every route: the compiled reading (decode/header.ts)
// wherever it knows the header, polkadot.js's (decode/polkadotReference.ts) where
// it does not. Block answers, `/header`, `/extrinsics-raw` and head hashes all go
// through here, so they agree on what a header says.
import type { TypeRegistry } from '@polkadot/types';

import { bytesOfHex } from '../decode/hex';
import { authorId, readHeader, readValidators, type HeaderFields, type HeaderReading } from '../decode/header';
import type { JsonValue } from '../decode/json';
import { headerCodecOf, headerFieldsOf, logsToJson, validatorsOf } from '../decode/polkadotReference';
import { toSidecarJson } from '../decode/codecJson';
import { ss58PrefixOf } from '../decode/ss58';
import type { Hex, RpcHeader, RpcSignedBlock } from '../rpc/nodeClient';

/** A header's hash. */
export function hashOfHeader(header: RpcHeader): Hex {
  return (readHeader(header)?.hash as Hex | undefined) ?? headerCodecOf(header).hash.toHex();
}

/**
 * The header fields of a block answer, its author found among the session validators
 * (`validatorsHex`, SCALE; null or undefined: none known), or undefined when the header
 * is not the block asked for (`isAskedFor` judges its hash): a node (or a proxy, or
 * chopsticks for hashes it does not know) can hand back some other block.
 */
export function blockHeaderFields(
  header: RpcHeader,
  validatorsHex: Hex | null | undefined,
  registry: TypeRegistry,
  isAskedFor: (hash: string) => boolean,
): HeaderFields | undefined {
  const reading = readHeader(header);
  // A reading whose hash differs may be a chain with a header of its own: polkadot.js decides.
  if (reading && isAskedFor(reading.hash)) {
    const validators = validatorsHex ? readValidators(bytesOfHex(validatorsHex)) : Buffer.alloc(0);
    // Accounts that are not 32 bytes, or an author polkadot.js reads otherwise: polkadot.js decides.
    const author = validators ? authorId(reading, validators, ss58PrefixOf(registry)) : undefined;
    if (author && author.kind !== 'declined') return { ...reading.fields, authorId: author.kind === 'author' ? author.address : undefined };
  }
  const codec = headerCodecOf(header);
  if (!isAskedFor(codec.hash.toHex())) return undefined;
  return headerFieldsOf(codec, validatorsHex ? validatorsOf(registry, bytesOfHex(validatorsHex)) : []);
}

/** A digest item as polkadot.js prints a header: `{ preRuntime: [engine, data] }`, `{ other: data }`, ... */
function digestItemJson({ type, value }: { type: string; value: JsonValue }): JsonValue {
  return { [`${type[0].toLowerCase()}${type.slice(1)}`]: value };
}

/** `/blocks/{id}/header`: the header as polkadot.js prints it. */
export function headerAnswer(header: RpcHeader): string {
  const reading = readHeader(header);
  if (!reading) return JSON.stringify(toSidecarJson(headerCodecOf(header)));
  const { parentHash, number, stateRoot, extrinsicsRoot, logs } = reading.fields;
  return JSON.stringify({ parentHash, number, stateRoot, extrinsicsRoot, digest: { logs: logs.map(digestItemJson) } });
}

/** The header's fields as `/extrinsics-raw` prints them: the number as a u32 in hex, logs as in a block answer. */
function rawHeaderFields(reading: HeaderReading | undefined, header: RpcHeader): Record<string, JsonValue> {
  if (reading) {
    const { parentHash, stateRoot, extrinsicsRoot, logs } = reading.fields;
    return { parentHash, number: `0x${reading.number.toString(16).padStart(8, '0')}`, stateRoot, extrinsicRoot: extrinsicsRoot, digest: { logs } };
  }
  const codec = headerCodecOf(header);
  return {
    parentHash: codec.parentHash.toHex(),
    number: codec.number.unwrap().toHex(),
    stateRoot: codec.stateRoot.toHex(),
    extrinsicRoot: codec.extrinsicsRoot.toHex(),
    digest: { logs: logsToJson(codec) },
  };
}

/** `/blocks/{id}/extrinsics-raw`: the header and the extrinsics as the node sent them. */
export function rawBlockAnswer(block: RpcSignedBlock['block']): string {
  return JSON.stringify({ ...rawHeaderFields(readHeader(block.header), block.header), extrinsics: block.extrinsics });
}
