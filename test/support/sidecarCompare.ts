// Asking fastcar and sidecar the same path and holding them to the same answer: what
// every conformance test against sidecar does. The base URLs are read when asked (the
// services start in a beforeAll).
import { isDeepStrictEqual } from 'node:util';

import { getJson, getReferenceJson } from '../../harness/http';
import { ON_REAL_NODE } from './devnet';

/**
 * The same path from sidecar and from fastcar, asked at once. A real node builds a block every
 * few seconds, and a path read at the head (no `at`) can see the head move between the two
 * answers: there a pair of answers (200) that differs is asked again, three times at most; a
 * difference that stays is a difference. On the devnet the head moves only when a test builds a block: asked once.
 */
export async function askBoth(sidecarUrl: string, fastcarUrl: string, path: string) {
  // Only two answers read at the head can differ by the head moving; refusals and reads `at` a block cannot.
  const atHead = ON_REAL_NODE && !/[?&]at=/.test(path);
  for (let tries = atHead ? 4 : 1; ; tries--) {
    const [theirs, ours] = await Promise.all([getReferenceJson(sidecarUrl + path), getJson(fastcarUrl + path)]);
    const bothAnswered = theirs.status === 200 && ours.status === 200;
    if (tries <= 1 || !bothAnswered || isDeepStrictEqual(theirs.body, ours.body)) return { theirs, ours };
    // fastcar's head is the one it follows, a moment behind the node's own just after a block: let it catch up.
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

export interface SidecarComparison {
  both(path: string): Promise<{ theirs: Awaited<ReturnType<typeof getJson>>; ours: Awaited<ReturnType<typeof getJson>> }>;
  /** The same status and body; fastcar's body. */
  compare(path: string): Promise<unknown>;
  /** Both refuse with `status`; the message is sidecar's where `sameMessage`; fastcar never sends a stack. Fastcar's message. */
  compareError(path: string, status: number, sameMessage?: boolean): Promise<string>;
}

export function sidecarComparison(urls: () => { sidecar: string; fastcar: string }): SidecarComparison {
  const both = async (path: string) => {
    const { sidecar, fastcar } = urls();
    return askBoth(sidecar, fastcar, path);
  };
  return {
    both,
    async compare(path) {
      const { theirs, ours } = await both(path);
      expect({ path, status: ours.status, body: ours.body }).toEqual({ path, status: theirs.status, body: theirs.body });
      return ours.body;
    },
    async compareError(path, status, sameMessage = true) {
      const { theirs, ours } = await both(path);
      expect({ path, theirs: theirs.status, ours: ours.status }).toEqual({ path, theirs: status, ours: status });
      const body = ours.body as { code: number; message: string; stack?: string };
      expect(body.code).toBe(status);
      expect(body.stack).toBeUndefined();
      if (sameMessage) expect({ path, message: body.message }).toEqual({ path, message: (theirs.body as { message: string }).message });
      return body.message;
    },
  };
}
