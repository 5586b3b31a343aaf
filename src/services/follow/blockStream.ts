// Finalized blocks pushed to subscribers, one event per height, in order, with no
// gaps and no repeats, whatever the head does (it may jump several heights).
//
// Subscribers with the same options share a channel. A channel builds each new
// finalized height once (through FinalizedBuilds, so the prebuilder, the cache and
// Redis share it too), encodes its event once, and writes those same bytes to every
// subscriber that is live. A subscriber that starts in the past (a reconnect with
// Last-Event-ID, or `from`) first catches up on its own: one height after another,
// from the channel's recent events, the cache or a build, never faster than it
// reads; once it reaches the heights the channel has not sent yet, it joins the
// channel. The channel only builds what some live subscriber still needs.
//
// Bounded: a cap on open streams; a live subscriber whose unsent bytes exceed its
// buffer is dropped with a final event naming the height to resume from (the
// others are not held up), and so is a catching-up one that takes nothing for
// too long. The node away: every subscriber is told, and the heights it missed
// are built and sent once it is back.
import { LRUCache } from 'lru-cache';

import { SingleFlight } from '../../cache/singleFlight';
import { Slots } from '../../slots';
import { AtCapacityError } from '../../errors';
import { NodeTimeoutError, NodeUnavailableError } from '../../rpc/nodeErrors';
import { sentJson, variantKey, type AnswerVariant } from '../blocks/answerVariant';
import type { FinalizedBuilds } from './finalizedBuilds';
import type { FinalizedFeed } from './finalizedFeed';
import { pauseAfterFailures } from './retryPause';
import type { Logger } from '../../logger';

/** What a stream sends: whole blocks as `/blocks/{n}` answers them, or headers as `/blocks/{n}/header` does. */
export type StreamOptions = { kind: 'blocks'; variant: AnswerVariant } | { kind: 'headers' };

/** Subscribers with equal keys receive equal bytes. */
export function streamKey(options: StreamOptions): string {
  return options.kind === 'headers' ? 'headers' : `blocks:${variantKey(options.variant)}`;
}

/** How events look on the wire (src/http/sse.ts). */
export interface StreamFrames {
  /** A block's event: the height as its id, the answer as its data. */
  block(height: number, data: string): Buffer;
  /** A named event with a JSON payload. */
  notice(name: string, payload: Record<string, unknown>): Buffer;
  /** Sent to every stream now and then, so balancers keep idle ones open. */
  heartbeat: Buffer;
}

/** One subscriber's connection, as the stream sees it. */
export interface StreamSink {
  /** Bytes written and not yet taken by the network. */
  readonly buffered: number;
  readonly closed: boolean;
  send(bytes: Buffer): void;
  /** Resolves true once everything written has gone out; false if that takes longer than `ms` or the client leaves. */
  drained(ms: number): Promise<boolean>;
  /** Sends `last` and ends the stream (and cuts it, should the client not take it). */
  finish(last: Buffer): void;
  onClose(listener: () => void): void;
}

/** Whether the node is there: `connected` costs nothing; `reachable` may ask it (at most once a second). */
export interface NodeStatus {
  connected(): boolean;
  reachable(): Promise<boolean>;
}

export interface StreamSettings {
  maxStreams: number;
  /** Unsent bytes a subscriber may have before it counts as lagging. */
  bufferBytes: number;
  heartbeatMs: number;
  /** How long a catching-up subscriber may take nothing before it is dropped. */
  stallMs: number;
  /** Past heights built at once for all catching-up subscribers together. */
  pastBuilds: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  maxStreams: 1000,
  bufferBytes: 8 * 1024 * 1024,
  heartbeatMs: 15_000,
  stallMs: 60_000,
  pastBuilds: 4,
};

/** Heights a catching-up subscriber has in hand or on the way, ahead of the one it sends next. */
const LOOKAHEAD = 4;
/** Encoded events kept for subscribers that ask for a recent height again (reconnects). */
const RECENT_EVENT_BYTES = 32 * 1024 * 1024;
const NODE_CHECK_MS = 1000;

export type DropReason = 'lagging' | 'stalled';

export interface StreamCounters {
  eventsSent: number;
  dropped: Record<DropReason, number>;
}

interface Subscriber {
  sink: StreamSink;
  channel: Channel;
  /** The next height this subscriber is to receive. */
  next: number;
  state: 'catching-up' | 'live' | 'gone';
}

interface Channel {
  key: string;
  options: StreamOptions;
  /** The newest height this channel has sent live (heights after it are still to come). */
  tip: number;
  live: Set<Subscriber>;
  members: number;
  producing: boolean;
}

export class BlockStreams {
  private readonly channels = new Map<string, Channel>();
  private readonly subscribers = new Set<Subscriber>();
  private readonly recentEvents = new LRUCache<string, Buffer>({ maxSize: RECENT_EVENT_BYTES, sizeCalculation: (event, key) => event.length + key.length });
  private readonly encoding = new SingleFlight<Buffer>();
  private readonly pastSlots: Slots;
  private readonly settings: StreamSettings;
  private nodeAway = false;
  private heartbeat?: NodeJS.Timeout;
  private nodeWatch?: NodeJS.Timeout;
  private closing = false;
  readonly counters: StreamCounters = { eventsSent: 0, dropped: { lagging: 0, stalled: 0 } };

  constructor(
    private readonly builds: Pick<FinalizedBuilds, 'block' | 'header'>,
    private readonly feed: Pick<FinalizedFeed, 'head' | 'currentHead' | 'onAdvance'>,
    private readonly frames: StreamFrames,
    private readonly node: NodeStatus,
    settings: Partial<StreamSettings> = {},
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
    this.settings = { ...DEFAULT_STREAM_SETTINGS, ...settings };
    this.pastSlots = new Slots(this.settings.pastBuilds);
    feed.onAdvance(() => {
      for (const channel of this.channels.values()) this.produce(channel);
    });
  }

  get open(): number {
    return this.subscribers.size;
  }

  get channelCount(): number {
    return this.channels.size;
  }

  /** Refuses a new stream over the cap (a 503, so a balancer may try another instance). */
  admit(): void {
    if (this.closing) throw new AtCapacityError('The server is shutting down; reconnect to resume.');
    if (this.settings.maxStreams === 0) throw new AtCapacityError('Streams are off on this instance (FASTCAR_MAX_STREAMS=0).');
    if (this.subscribers.size >= this.settings.maxStreams) {
      throw new AtCapacityError(`Too many open streams (${this.settings.maxStreams}); retry shortly or on another instance.`);
    }
  }

  /** The height a stream starts at when the client names none: the finalized head. */
  async defaultStart(): Promise<number> {
    return this.feed.currentHead();
  }

  /**
   * Sends `sink` every finalized height from `start` on. The caller has called admit()
   * and opened the sink; from here the stream is this object's until the client leaves.
   */
  subscribe(options: StreamOptions, start: number, sink: StreamSink): void {
    const channel = this.channelFor(options);
    const subscriber: Subscriber = { sink, channel, next: start, state: 'catching-up' };
    channel.members += 1;
    this.subscribers.add(subscriber);
    this.startTimers();
    sink.onClose(() => this.leave(subscriber));
    if (sink.closed) {
      this.leave(subscriber);
      return;
    }
    // Built by the services of no request: these builds are nobody's request.
    void this.catchUp(subscriber);
  }

  /** Ends every stream with a final event saying where to resume. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    clearInterval(this.nodeWatch);
    const ends = [...this.subscribers].map(
      (subscriber) =>
        new Promise<void>((resolve) => {
          subscriber.sink.onClose(resolve);
          this.drop(subscriber, 'closing', 'The server is shutting down; reconnect to resume.');
          setTimeout(resolve, 1000).unref();
        }),
    );
    await Promise.all(ends);
  }

  private channelFor(options: StreamOptions): Channel {
    const key = streamKey(options);
    let channel = this.channels.get(key);
    if (!channel) {
      // A new channel starts live at the head: whoever wants earlier heights catches up to it.
      channel = { key, options, tip: this.feed.head - 1, live: new Set(), members: 0, producing: false };
      this.channels.set(key, channel);
    }
    return channel;
  }

  private leave(subscriber: Subscriber): void {
    if (subscriber.state === 'gone') return;
    subscriber.state = 'gone';
    this.subscribers.delete(subscriber);
    const { channel } = subscriber;
    channel.live.delete(subscriber);
    channel.members -= 1;
    if (channel.members === 0 && this.channels.get(channel.key) === channel) this.channels.delete(channel.key);
    if (this.subscribers.size === 0) this.stopTimers();
  }

  /** Ends a subscriber's stream with a final event naming the next height it has not received. */
  private drop(subscriber: Subscriber, reason: DropReason | 'closing', message: string): void {
    if (subscriber.state === 'gone') return;
    const from = subscriber.next;
    this.leave(subscriber);
    if (reason !== 'closing') this.counters.dropped[reason] += 1;
    subscriber.sink.finish(this.frames.notice('resume', { from, reason, message }));
  }

  /** Past heights, one after another at the subscriber's pace, until it reaches what its channel sends live. */
  private async catchUp(subscriber: Subscriber): Promise<void> {
    const pending = new Map<number, Promise<Buffer>>();
    let failures = 0;
    while (subscriber.state === 'catching-up') {
      const { channel } = subscriber;
      if (subscriber.next > channel.tip) {
        subscriber.state = 'live';
        channel.live.add(subscriber);
        this.produce(channel);
        return;
      }
      // The next few heights on their way while this one is sent.
      for (let height = subscriber.next; height <= Math.min(channel.tip, subscriber.next + LOOKAHEAD - 1); height++) {
        if (!pending.has(height)) pending.set(height, handled(this.eventAt(channel, height, true)));
      }
      let event: Buffer;
      try {
        event = await pending.get(subscriber.next)!;
        failures = 0;
      } catch (error) {
        pending.clear();
        await this.afterFailure(error, ++failures, subscriber.next);
        continue;
      }
      pending.delete(subscriber.next);
      if (subscriber.state !== 'catching-up') return;
      subscriber.sink.send(event);
      subscriber.next += 1;
      this.counters.eventsSent += 1;
      if (subscriber.sink.buffered > this.settings.bufferBytes) {
        const drained = await subscriber.sink.drained(this.settings.stallMs);
        if (!drained && subscriber.state === 'catching-up') {
          this.drop(subscriber, 'stalled', `Nothing was read for ${Math.round(this.settings.stallMs / 1000)} s; reconnect to resume.`);
        }
      }
    }
  }

  /**
   * Builds and sends the channel's next heights while some live subscriber needs one
   * the head has reached: in order, each once, skipping only heights no live
   * subscriber is waiting for (those that want them later catch up on their own).
   */
  private produce(channel: Channel): void {
    if (channel.producing || channel.live.size === 0) return;
    channel.producing = true;
    void this.producing(channel).finally(() => {
      channel.producing = false;
      // A subscriber that joined, or a head that moved, while the last build ran.
      if (channel.live.size > 0 && this.nextFor(channel) <= this.feed.head && this.channels.get(channel.key) === channel) this.produce(channel);
    });
  }

  private nextFor(channel: Channel): number {
    let lowest = Infinity;
    for (const subscriber of channel.live) lowest = Math.min(lowest, subscriber.next);
    return Math.max(channel.tip + 1, lowest);
  }

  private async producing(channel: Channel): Promise<void> {
    let failures = 0;
    while (channel.live.size > 0 && !this.closing) {
      const height = this.nextFor(channel);
      if (height > this.feed.head) return;
      let event: Buffer;
      try {
        event = await this.eventAt(channel, height, false);
        failures = 0;
        if (this.node.connected()) this.setNodeAway(false);
      } catch (error) {
        await this.afterFailure(error, ++failures, height);
        continue;
      }
      channel.tip = Math.max(channel.tip, height);
      for (const subscriber of channel.live) {
        if (subscriber.next === height) this.sendLive(subscriber, event);
        else if (subscriber.next < height) {
          // Joined while a later height was being built: what it lacks it catches up on.
          channel.live.delete(subscriber);
          subscriber.state = 'catching-up';
          void this.catchUp(subscriber);
        }
      }
    }
  }

  private sendLive(subscriber: Subscriber, event: Buffer): void {
    if (subscriber.sink.buffered > this.settings.bufferBytes) {
      this.drop(subscriber, 'lagging', `More than ${this.settings.bufferBytes} bytes were waiting to be read; reconnect to resume.`);
      return;
    }
    subscriber.sink.send(event);
    subscriber.next += 1;
    this.counters.eventsSent += 1;
  }

  /** A height's event for a channel: encoded once, kept a while for reconnects. */
  private eventAt(channel: Channel, height: number, past: boolean): Promise<Buffer> {
    const key = `${channel.key}:${height}`;
    const kept = this.recentEvents.get(key);
    if (kept) return Promise.resolve(kept);
    return this.encoding.run(key, async () => {
      const data = past ? await this.pastSlots.run(() => this.dataAt(channel.options, height)) : await this.dataAt(channel.options, height);
      const event = this.frames.block(height, data);
      this.recentEvents.set(key, event);
      return event;
    }).promise;
  }

  /** Exactly what `/blocks/{n}` (or `/blocks/{n}/header`) answers for these options. */
  private async dataAt(options: StreamOptions, height: number): Promise<string> {
    if (options.kind === 'headers') return this.builds.header(height);
    const answer = await this.builds.block({ kind: 'number', number: height }, options.variant);
    return sentJson(answer, options.variant);
  }

  /** After a failed build: tell everyone if the node is away, then wait longer each time (a height is never skipped). */
  private async afterFailure(error: unknown, failures: number, height: number): Promise<void> {
    if (error instanceof NodeUnavailableError || error instanceof NodeTimeoutError) this.setNodeAway(true);
    else if (failures === 1 || failures % 10 === 0)
      this.logger?.warn({ err: error, height, failures }, 'a finalized block could not be built for its streams; retrying');
    await pauseAfterFailures(failures);
  }

  private setNodeAway(away: boolean): void {
    if (away === this.nodeAway) return;
    this.nodeAway = away;
    const event = away
      ? this.frames.notice('node-unavailable', { message: 'The node is unavailable; the stream continues where it stopped once it is back.' })
      : this.frames.notice('node-available', { message: 'The node is back; the heights finalized meanwhile follow in order.' });
    for (const subscriber of this.subscribers) subscriber.sink.send(event);
  }

  private startTimers(): void {
    this.heartbeat ??= setInterval(() => {
      for (const subscriber of this.subscribers) {
        // A stream with bytes still waiting is not idle; the heartbeat would only pile up.
        if (subscriber.sink.buffered === 0) subscriber.sink.send(this.frames.heartbeat);
      }
    }, this.settings.heartbeatMs).unref();
    this.nodeWatch ??= setInterval(() => void this.watchNode(), NODE_CHECK_MS).unref();
  }

  private stopTimers(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.nodeWatch);
    this.heartbeat = undefined;
    this.nodeWatch = undefined;
  }

  /** A lost connection is seen at once; a node that is back is asked (once a second) before streams are told so. */
  private async watchNode(): Promise<void> {
    if (!this.nodeAway) {
      if (!this.node.connected()) this.setNodeAway(true);
      return;
    }
    if (this.node.connected() && (await this.node.reachable().catch(() => false))) {
      this.setNodeAway(false);
      for (const channel of this.channels.values()) this.produce(channel);
    }
  }
}

/** `promise`, marked handled now: it is awaited later and may fail before. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
