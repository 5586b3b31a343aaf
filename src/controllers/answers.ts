// Answers every family makes the same way.
import type { Reply } from '../http/reply';
import type { AnswerAt } from '../services/shared/at/blockAt';

/**
 * A read at a block, as a reply: kept by clients (an ETag, immutable) when that block can
 * no longer change, `variant` naming what else the answer depends on; else never kept.
 */
export function replyAt(answer: AnswerAt, variant: string): Reply {
  if (!answer.final) return { body: answer.json };
  return { body: answer.json, etag: `"${answer.hash}-${variant}"` };
}
