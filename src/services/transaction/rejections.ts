// Why a node refused a submitted transaction, in one stable word for clients to act
// on. Nodes say it in their own words: a Substrate node with pool error codes (1010
// invalid, 1011 unknown validity, 1012 banned, 1013 already imported, 1014 priority
// too low, 1016 pool full) and a sentence in `data`; chopsticks as the JSON of the
// runtime's TransactionValidityError (`{"invalid":{"badProof":null}}`).
import type { RpcError } from '../../rpc/nodeErrors';

/** Matched against the node's message and data, first match wins (most specific first). */
const BY_TEXT: [RegExp, string][] = [
  [/badproof|bad signature/i, 'badProof'],
  [/stale|outdated/i, 'stale'],
  [/future/i, 'future'],
  [/already imported/i, 'alreadyImported'],
  [/banned/i, 'temporarilyBanned'],
  [/immediately dropped|pool.{0,20}(full|limit)/i, 'poolFull'],
  [/priority is too low|too low priority/i, 'priorityTooLow'],
  [/payment|inability to pay/i, 'payment'],
  [/exhausts ?resources/i, 'exhaustsResources'],
  [/ancient ?birth/i, 'ancientBirthBlock'],
  [/badmandatory|mandatory/i, 'badMandatory'],
  [/cannotlookup|cannot lookup/i, 'cannotLookup'],
];

const BY_CODE = new Map<number, string>([
  [1012, 'temporarilyBanned'],
  [1013, 'alreadyImported'],
  [1014, 'priorityTooLow'],
  [1016, 'poolFull'],
  [1010, 'invalid'],
  [1011, 'unknownValidity'],
]);

/** The reason's name, or undefined when the node's words name none this knows. */
export function rejectionReason(error: RpcError): string | undefined {
  const text = error.message;
  if (error.code === 1013 || error.code === 1012 || error.code === 1014 || error.code === 1016) return BY_CODE.get(error.code);
  return BY_TEXT.find(([pattern]) => pattern.test(text))?.[1] ?? BY_CODE.get(error.code);
}
