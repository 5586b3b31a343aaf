// How much a server lets us send: requests in flight and per second, at most
// what was configured, lowered to what the server took when it says "slow
// down", paused for its Retry-After, and grown back with ordinary answers.
// Used by the HTTP JSON-RPC transport; knows nothing of HTTP itself.

/** A learned rate above this is as good as none. */
const UNLIMITED_RATE = 100_000;
/** Throttled: the limits go down to this share of what was in flight and sent in the last second. */
const BACK_OFF = 0.75;
const RATE_BACK_OFF = 0.8;
/** Per ordinary answer, the learned rate grows this much: at r answers a second, e^(0.35 t), double in two seconds. */
const RATE_STEP = 0.35;

export class AdaptiveLimits {
  private inFlight: number;
  private learnedRate = Infinity;
  private readonly configuredRate: number;
  private tokens = 0;
  private tokensAt = 0;
  private pausedUntilMs = 0;
  private learnedAt = 0;
  private readonly sentTimes: number[] = [];

  constructor(
    private readonly maxInFlight: number,
    ratePerSecond: number,
  ) {
    this.inFlight = maxInFlight;
    this.configuredRate = ratePerSecond > 0 ? ratePerSecond : Infinity;
  }

  /** Requests allowed in flight now. */
  get inFlightLimit(): number {
    return Math.max(1, Math.floor(this.inFlight));
  }

  /** Requests per second allowed now (Infinity: no limit). */
  get ratePerSecond(): number {
    return Math.min(this.configuredRate, this.learnedRate);
  }

  /** Until when nothing may be sent (epoch ms). */
  get pausedUntil(): number {
    return this.pausedUntilMs;
  }

  /** 0 when a request may go now (and it is counted as sent), else how long until one may. */
  take(now: number): number {
    if (now < this.pausedUntilMs) return this.pausedUntilMs - now;
    const rate = this.ratePerSecond;
    if (Number.isFinite(rate)) {
      // Bursts of a tenth of a second's worth at most: a server's window is seldom shorter.
      const capacity = Math.max(1, rate / 10);
      this.tokens = Math.min(capacity, this.tokens + ((now - this.tokensAt) / 1000) * rate);
      this.tokensAt = now;
      if (this.tokens < 1) return Math.ceil(((1 - this.tokens) / rate) * 1000);
      this.tokens -= 1;
    }
    this.sentTimes.push(now);
    while (this.sentTimes.length > 0 && this.sentTimes[0] < now - 1000) this.sentTimes.shift();
    return 0;
  }

  /**
   * The server said to slow down about a request sent at `sentAt`, with `inFlight` requests
   * in flight: nothing is sent for `pauseMs`, and the limits go below what it took (once per
   * burst: requests sent before the last lesson say nothing new). Returns the end of the pause.
   */
  throttled(now: number, sentAt: number, inFlight: number, pauseMs: number): number {
    if (sentAt >= this.learnedAt) {
      this.learnedAt = now;
      this.inFlight = Math.max(1, Math.min(this.inFlight, inFlight) * BACK_OFF);
      const sentLastSecond = this.sentTimes.filter((at) => at >= now - 1000).length;
      if (sentLastSecond >= 2) this.learnedRate = Math.max(1, Math.min(this.learnedRate, sentLastSecond * RATE_BACK_OFF));
    }
    this.pausedUntilMs = Math.max(this.pausedUntilMs, now + pauseMs);
    return this.pausedUntilMs;
  }

  /**
   * An ordinary answer: the limits grow back toward the configured ones (one more in
   * flight per that many answers; the rate by a fixed step per answer, so it doubles in
   * about two seconds whatever it is: at a low learned rate a step in proportion to it
   * left a provider's allowance unused for tens of seconds).
   */
  answered(): void {
    if (this.inFlight < this.maxInFlight) this.inFlight = Math.min(this.maxInFlight, this.inFlight + 1 / Math.max(1, this.inFlight));
    if (Number.isFinite(this.learnedRate)) {
      this.learnedRate += Math.max(RATE_STEP, this.learnedRate / 400);
      if (this.learnedRate >= Math.min(this.configuredRate, UNLIMITED_RATE)) this.learnedRate = Infinity;
    }
  }
}
