// Calls about "latest" state, answered at the tip. A call that reads a block's
// state and leaves out the block hash is given the tip's hash: it is sent to a
// node with that hash (so the answer is the one its key names, even if the tip
// moves while the node works), kept under the hash, the method and its params
// in one spelling, and every entry goes when the tip moves. So a thousand
// wallets asking the same balance within one block cost the node one call.
//
// Only pure functions of a block's state qualify. `system_accountNextIndex`
// does not (it counts the transaction pool too), nor do calls about blocks
// rather than state (`chain_getHeader`, `chain_getBlock`: left as they were).
import { AnswerCache, type ResultText } from './answerCache';
import { atHashPosition, callKey } from './cachePolicy';
import type { Tip, TipTracker } from './tipTracker';
import type { Upstream } from './upstream';

const AT_TIP = new Set([
  'state_call',
  'state_callAt',
  'state_getStorage',
  'state_getStorageAt',
  'state_getStorageHash',
  'state_getStorageHashAt',
  'state_getStorageSize',
  'state_getStorageSizeAt',
  'state_getKeysPaged',
  'state_getKeysPagedAt',
  'state_queryStorageAt',
  'state_getMetadata',
  'state_getRuntimeVersion',
  'chain_getRuntimeVersion',
  'payment_queryInfo',
  'payment_queryFeeDetails',
  'childstate_getStorage',
]);

const HEX = /^0x[0-9a-fA-F]*$/;

/** Hex in lower case (a node reads either), lists and objects through: two spellings of one call share a key. */
function canonical(value: unknown): unknown {
  if (typeof value === 'string') return HEX.test(value) ? value.toLowerCase() : value;
  if (Array.isArray(value)) return value.map(canonical);
  return value;
}

/** A call resolved to the tip: what to send, under which key, and to which nodes. */
export interface TipCall {
  tip: Tip;
  params: unknown[];
  key: string;
  usable: (upstream: Upstream) => boolean;
}

export class TipAnswers {
  private cache: AnswerCache;
  /** The tip the kept entries were answered at. */
  private keptAt?: string;

  constructor(
    private readonly tracker: TipTracker,
    maxBytes: number,
  ) {
    this.cache = new AnswerCache(maxBytes);
    tracker.onMove((tip) => this.moved(tip));
  }

  /** The call at the tip, or undefined when it names its block already, is not about state, or no node can answer at the tip. */
  resolve(method: string, params: unknown[]): TipCall | undefined {
    if (!AT_TIP.has(method) || this.cache.maxBytes === 0) return undefined;
    const at = atHashPosition(method)!;
    // Past the block parameter, or a block named already: not a call about "latest".
    if (params.length > at + 1 || (params.length === at + 1 && params[at] !== null)) return undefined;
    const tip = this.tracker.current();
    if (!tip || !this.tracker.reachable(tip.hash)) return undefined;
    const resolved = canonical(params) as unknown[];
    while (resolved.length < at) resolved.push(null);
    resolved[at] = tip.hash;
    return { tip, params: resolved, key: callKey(method, resolved), usable: (upstream) => this.tracker.holds(upstream, tip.hash) };
  }

  get(call: TipCall): ResultText | undefined {
    return this.cache.get(call.key);
  }

  /** Kept only while its tip is still the tip: an answer that comes back after the tip moved is served, not kept. */
  keep(call: TipCall, text: ResultText): void {
    if (this.tracker.current()?.hash !== call.tip.hash) return;
    if (this.keptAt !== call.tip.hash) this.moved(call.tip);
    this.cache.set(call.key, text);
  }

  private moved(tip: Tip | undefined): void {
    if (this.keptAt === tip?.hash) return;
    this.keptAt = tip?.hash;
    this.cache.clear();
  }

  /** A new byte bound; 0 turns tip-keyed answers off (such calls go to a node as they are). */
  resize(maxBytes: number): void {
    this.cache = this.cache.resized(maxBytes);
  }

  get bytes(): number {
    return this.cache.bytes;
  }

  get size(): number {
    return this.cache.size;
  }
}
