// Every route family fastcar serves, in the order their paths are matched (the
// follow family's fixed paths, `/blocks/stream`, before `/blocks/:blockId`), and
// the OpenAPI document they make together.
import { buildOpenApi } from '../http/openapi';
import type { RouteFamily } from '../http/routes';
import { BLOCKS_FAMILY } from './blocks/routes';
import { FOLLOW_FAMILY } from './follow/routes';

export const ROUTE_FAMILIES: readonly RouteFamily[] = [FOLLOW_FAMILY, BLOCKS_FAMILY];

/** What GET /openapi.json serves (and `npm run openapi` writes): the blocks family first, as readers look for it. */
export function openApiDocument(version: string): Record<string, unknown> {
  return buildOpenApi(version, [BLOCKS_FAMILY, FOLLOW_FAMILY]);
}
