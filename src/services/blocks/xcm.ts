// `decodedXcmMsgs`: the XCM messages a block carries, decoded, in sidecar's shape.
//
// A parachain receives downward (relay -> para) and horizontal (para -> para)
// messages in its `parachainSystem.setValidationData` inherent. Runtimes before
// polkadot-sdk stable2506 carry them in the inherent's `data`; later ones in a
// second argument, `inboundMessagesData`, as `fullMessages` (with content) and
// `hashedMessages` (content left out to fit the block, so nothing to decode).
// A relay chain sees upward and horizontal messages in the commitments of the
// candidates backed through `paraInherent.enter`.
import type { TypeRegistry } from '@polkadot/types';
import type { Block } from '@polkadot/types/interfaces';
import type { Codec } from '@polkadot/types-codec/types';
import { u8aToHex } from '@polkadot/util';

import { toSidecarJson, type JsonValue } from '../../decode/codecJson';

export interface XcmMessages {
  horizontalMessages: JsonValue[];
  downwardMessages: JsonValue[];
  upwardMessages: JsonValue[];
}

/** Spec names of relay chains; every other chain is read as a parachain (sidecar's rule too). */
const RELAY_CHAINS = new Set(['polkadot', 'kusama', 'westend', 'rococo', 'paseo']);

type Fields = Codec & { get?(name: string): Codec | undefined };

function field(value: Codec | undefined, name: string): Codec | undefined {
  return (value as Fields | undefined)?.get?.(name);
}

function items(value: Codec | undefined): Codec[] {
  return value && Array.isArray(value) ? (value as unknown as Codec[]) : [];
}

/** A message may hold several versioned programs back to back. */
function decodePrograms(registry: TypeRegistry, bytes: Uint8Array): JsonValue[] {
  const programs: JsonValue[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const program = registry.createType('XcmVersionedXcm', rest);
    const length = program.encodedLength;
    if (length === 0) break;
    programs.push(toSidecarJson(program));
    rest = rest.subarray(length);
  }
  return programs;
}

/** Horizontal payloads start with a one-byte format tag before the programs. */
const withoutFormatTag = (bytes: Uint8Array) => bytes.subarray(1);

function parachainMessages(registry: TypeRegistry, block: Block, out: XcmMessages): void {
  for (const extrinsic of block.extrinsics) {
    const { section, method, args } = extrinsic.method;
    if (section !== 'parachainSystem' || method !== 'setValidationData') continue;
    const [data, inbound] = args;
    const legacyHorizontal = field(data, 'horizontalMessages');
    const downward = inbound ? items(field(field(inbound, 'downwardMessages'), 'fullMessages')) : items(field(data, 'downwardMessages'));
    for (const message of downward) {
      const msg = field(message, 'msg')?.toU8a(true) ?? new Uint8Array();
      if (msg.length === 0) continue;
      out.downwardMessages.push({
        sentAt: toSidecarJson(field(message, 'sentAt')),
        msg: u8aToHex(msg),
        data: decodePrograms(registry, msg),
      });
    }
    const horizontal: [Codec, Codec][] = inbound
      ? items(field(field(inbound, 'horizontalMessages'), 'fullMessages')).map((pair) => [...(pair as unknown as [Codec, Codec])])
      : legacyHorizontal instanceof Map
        ? [...(legacyHorizontal as unknown as Map<Codec, Codec>)].flatMap(([paraId, messages]) => items(messages).map((m): [Codec, Codec] => [paraId, m]))
        : [];
    for (const [paraId, message] of horizontal) {
      const payload = field(message, 'data')?.toU8a(true) ?? new Uint8Array();
      out.horizontalMessages.push({
        sentAt: toSidecarJson(field(message, 'sentAt')),
        originParaId: toSidecarJson(paraId),
        data: decodePrograms(registry, withoutFormatTag(payload)),
      });
    }
  }
}

function relayMessages(registry: TypeRegistry, block: Block, out: XcmMessages): void {
  for (const extrinsic of block.extrinsics) {
    const { section, method, args } = extrinsic.method;
    if (section !== 'paraInherent' || method !== 'enter') continue;
    for (const backed of items(field(args[0], 'backedCandidates'))) {
      const candidate = field(backed, 'candidate');
      const paraId = toSidecarJson(field(field(candidate, 'descriptor'), 'paraId'));
      const commitments = field(candidate, 'commitments');
      // A candidate's upward messages are listed as one entry of its parachain.
      const upward = items(field(commitments, 'upwardMessages')).flatMap((message) => decodePrograms(registry, message.toU8a(true)));
      if (upward.length > 0) out.upwardMessages.push({ originParaId: paraId, data: upward });
      for (const message of items(field(commitments, 'horizontalMessages'))) {
        out.horizontalMessages.push({
          originParaId: paraId,
          destinationParaId: toSidecarJson(field(message, 'recipient')),
          data: decodePrograms(registry, withoutFormatTag(field(message, 'data')?.toU8a(true) ?? new Uint8Array())),
        });
      }
    }
  }
}

/** Every XCM message in `block`, of any parachain. */
export function xcmMessages(registry: TypeRegistry, specName: string, block: Block): XcmMessages {
  const out: XcmMessages = { horizontalMessages: [], downwardMessages: [], upwardMessages: [] };
  if (RELAY_CHAINS.has(specName.toLowerCase())) relayMessages(registry, block, out);
  else parachainMessages(registry, block, out);
  return out;
}

/**
 * Only the messages `paraId` sent (downward messages come from the relay chain and
 * are always kept). 0 keeps everything, as sidecar's falsy check does.
 */
export function forParachain(messages: XcmMessages, paraId: number | undefined): XcmMessages {
  if (!paraId) return messages;
  const fromPara = (message: JsonValue) => (message as { originParaId?: JsonValue }).originParaId === String(paraId);
  return {
    horizontalMessages: messages.horizontalMessages.filter(fromPara),
    downwardMessages: messages.downwardMessages,
    upwardMessages: messages.upwardMessages.filter(fromPara),
  };
}
