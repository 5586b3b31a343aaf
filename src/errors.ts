// Errors that say what went wrong in terms a client can act on. Controllers throw
// ApiError for what they parse (it carries its status); services throw the typed
// errors below for what only they can tell; calls to the node fail with the
// errors of src/rpc/nodeErrors.ts. src/http/errorReply.ts is the one place any
// of them becomes a status and a sentence.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message: string) => new ApiError(404, message);

/** No block with this hash is known to the node. */
export class UnknownBlockError extends Error {
  constructor(readonly hash: string) {
    super(`No block with hash ${hash} is known to the node.`);
  }
}

/** A height past the node's best block, whose height it names (as sidecar does). */
export class BeyondHeadError extends Error {
  constructor(readonly head: number) {
    super(`Specified block number is larger than the current largest block. The largest known block number is ${head}.`);
  }
}

/**
 * What the request asks for does not exist at the block it names (a metadata version the
 * runtime does not offer, a pallet it lacks, state pruned): a 400, the client may ask
 * another block or another thing. A fault of the chain's own state is a ChainStateError.
 */
export class NotAtThisBlockError extends Error {}

/**
 * The chain's state at the block contradicts what its runtime promises (an active era
 * with no start session, a bonded stash with no ledger): nothing the client asked is
 * wrong, and another block may answer. A 500 that says so, as sidecar answers it.
 */
export class ChainStateError extends Error {}

/** This instance cannot take the request now (a cap reached, or closing); another instance, or a later try, may. */
export class AtCapacityError extends Error {}

/** The node answered without what every node has (its best header). */
export class IncompleteNodeAnswerError extends Error {}

/**
 * A transaction a POST route could not use, answered in sidecar's shape for it:
 * `{code, error, transaction, cause, at}` (no stack), `reason` naming a node's
 * rejection in one stable word where the node gave one.
 */
export class TransactionError extends Error {
  constructor(
    /** Sidecar's summary for the route ("Unable to fetch fee info", "Failed to submit transaction."). */
    readonly summary: string,
    /** The `tx` as the client sent it. */
    readonly transaction: unknown,
    /** What went wrong with it, in words (the answer's `cause`). */
    readonly explanation: string,
    readonly at?: { hash: string; height?: string },
    readonly reason?: string,
    readonly status = 400,
  ) {
    super(`${summary}: ${explanation}`);
  }
}
