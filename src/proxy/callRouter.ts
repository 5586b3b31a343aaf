// Where a read's answer comes from: the cache when it cannot change, a call in
// flight already when an identical one is, else a node. What a node answers is
// kept only when its method and block make it final and it has the right shape.
// A read of "latest" state is answered at the tip the proxy follows (tipAnswers.ts).
import { AnswerCache, resultText, type ResultText } from './answerCache';
import { callKey, decide, isConstantCall } from './cachePolicy';
import { MergedCalls } from './mergedCalls';
import type { MethodPolicy } from './methods';
import type { ProxyMetrics } from './proxyMetrics';
import { judge, type Verdict } from './resultShapes';
import type { Slots } from '../slots';
import type { TipAnswers, TipCall } from './tipAnswers';
import { NoUpstreamError, type UpstreamPool } from './upstreamPool';

export interface CallRouterLimits {
  cacheMaxBytes: number;
  /** An answer past it is not kept: the caller refuses it anyway. */
  maxAnswerBytes: number;
}

export class CallRouter {
  private cache: AnswerCache;
  private readonly calls = new MergedCalls<ResultText>();
  /**
   * The chain's constants the cache has kept (a handful of short texts, one per constant
   * method), by method: found without building a key or touching the LRU's order. Kept
   * while the proxy runs, as the cache keeps them unless it is made too small by a reload.
   */
  private readonly constants = new Map<string, ResultText>();

  constructor(
    private readonly pool: UpstreamPool,
    private readonly policy: MethodPolicy,
    private readonly limits: CallRouterLimits,
    private readonly metrics: ProxyMetrics,
    private readonly tip?: TipAnswers,
  ) {
    this.cache = new AnswerCache(limits.cacheMaxBytes);
  }

  get cacheBytes(): number {
    return this.cache.bytes;
  }

  /** A new bound for the cache (a reload): the most recently used entries stay. */
  resizeCache(maxBytes: number): void {
    if (maxBytes !== this.cache.maxBytes) this.cache = this.cache.resized(maxBytes);
    for (const method of this.constants.keys()) if (!this.cache.has(callKey(method, []))) this.constants.delete(method);
  }

  /**
   * The result of a read when the cache holds it (for good, or for the tip), without
   * a Promise; undefined when it must be asked for (answer), nothing counted then.
   */
  cached(method: string, params: unknown[]): ResultText | undefined {
    let kept = params.length === 0 ? this.constants.get(method) : undefined;
    if (kept) {
      this.metrics.cacheHits.inc();
      return kept;
    }
    const atTip = this.tip?.resolve(method, params);
    if (atTip) kept = this.tip!.get(atTip);
    else {
      const decision = decide(method, params);
      if (decision.kind !== 'passThrough') kept = this.cache.get(decision.key);
    }
    if (kept) this.metrics.cacheHits.inc();
    return kept;
  }

  /** The result of a read: from the cache, from a call in flight already, or from a node (counted against `caller`, placed for `client`). */
  async answer(method: string, params: unknown[], signal: AbortSignal, caller: Slots, client?: string): Promise<ResultText> {
    const atTip = this.tip?.resolve(method, params);
    if (atTip) return this.answerAtTip(method, params, atTip, signal, caller);
    const decision = decide(method, params);
    let cacheKey: string | undefined;
    let minFinalized: number | undefined;
    if (decision.kind === 'immutable') cacheKey = decision.key;
    else if (decision.kind === 'finalizedNumber') {
      // A hash kept was finalized when it was kept: served whatever the upstreams' state now.
      const kept = this.cache.get(decision.key);
      if (kept) {
        this.metrics.cacheHits.inc();
        return kept;
      }
      if (this.pool.hasFinalized(decision.number)) {
        // The hash of height n may be kept only as told by a node that has itself finalized n.
        cacheKey = decision.key;
        minFinalized = decision.number;
      }
    }
    if (cacheKey) {
      const cached = this.cache.get(cacheKey);
      if (cached !== undefined) {
        this.metrics.cacheHits.inc();
        return cached;
      }
      this.metrics.cacheMisses.inc();
    }
    const mergeKey = cacheKey ?? (decision.kind === 'passThrough' ? decision.mergeKey : decision.key);
    const send = async (callSignal: AbortSignal): Promise<ResultText> => {
      this.metrics.upstreamCalls.inc();
      // Only what may be kept is judged: anything else is the node's answer to pass on.
      const verdictOf = cacheKey ? (result: unknown) => judge(method, params, result) : () => 'serve' as const;
      const retry = mergeKey !== undefined;
      const { result, verdict } = await this.pool.call(method, params, { retry, minFinalized, judge: verdictOf, signal: callSignal, caller, client });
      // The node's list would name methods this proxy refuses.
      const permitted = (list: { methods: string[] }) => ({ ...list, methods: list.methods.filter((name) => this.policy.permits(name)) });
      const shown = method === 'rpc_methods' && isMethodList(result) ? permitted(result) : result;
      const text = resultText(shown);
      if (cacheKey && verdict === 'cache' && text.bytes <= this.limits.maxAnswerBytes && !this.cache.has(cacheKey)) {
        this.cache.set(cacheKey, text);
        // Only what the cache could hold: with the cache off (or too small) a constant is asked for each time too.
        if (isConstantCall(method, params) && this.cache.has(cacheKey)) this.constants.set(method, text);
      }
      return text;
    };
    if (!mergeKey) return send(signal);
    const { promise, joined } = this.calls.run(mergeKey, send, signal);
    if (joined) this.metrics.mergedCalls.inc();
    return promise;
  }

  /** A read of "latest" state: kept for the tip, merged with identical ones, sent with the tip's hash to a node that has it. */
  private answerAtTip(method: string, asked: unknown[], call: TipCall, signal: AbortSignal, caller: Slots): Promise<ResultText> {
    const kept = this.tip!.get(call);
    if (kept) {
      this.metrics.cacheHits.inc();
      return Promise.resolve(kept);
    }
    this.metrics.cacheMisses.inc();
    const send = async (callSignal: AbortSignal): Promise<ResultText> => {
      this.metrics.upstreamCalls.inc();
      const verdictOf = (result: unknown) => judge(method, call.params, result);
      let answered: { result: unknown; verdict: Verdict };
      try {
        answered = await this.pool.call(method, call.params, { retry: true, judge: verdictOf, signal: callSignal, caller, usable: call.usable });
      } catch (error) {
        if (!(error instanceof NoUpstreamError)) throw error;
        // The nodes that have the tip failed: another node answers "latest" as it sees it, not kept.
        const { result } = await this.pool.call(method, asked, { retry: true, judge: () => 'serve', signal: callSignal, caller });
        return resultText(result);
      }
      const { result, verdict } = answered;
      const text = resultText(result);
      if (verdict === 'cache' && text.bytes <= this.limits.maxAnswerBytes) this.tip!.keep(call, text);
      return text;
    };
    const { promise, joined } = this.calls.run(call.key, send, signal);
    if (joined) this.metrics.mergedCalls.inc();
    return promise;
  }

  /** Waits for the calls in flight to end. */
  drain(): Promise<void> {
    return this.calls.drain();
  }
}

function isMethodList(value: unknown): value is { methods: string[] } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { methods?: unknown }).methods);
}
