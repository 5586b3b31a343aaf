// What a node answers over JSON-RPC about itself (its properties, chain type, roles,
// health, peers), as sidecar shows it: read as polkadot.js's types of the same name,
// then written as sidecar writes them (codecJson.ts). These answers are small and
// asked once or seldom, so the reference reading is the one used.
import { TypeRegistry } from '@polkadot/types';

import { toSidecarJson, type JsonValue } from './codecJson';

const registry = new TypeRegistry();

export type RpcType = 'ChainProperties' | 'ChainType' | 'Vec<NodeRole>' | 'Health' | 'Vec<PeerInfo>';

export function sidecarJsonOf(type: RpcType, raw: unknown): JsonValue {
  return toSidecarJson(registry.createType(type, raw));
}
