// Starts the calls of many connections in turn, so that one connection's ten
// thousand calls cannot keep another's single call waiting behind them. Each
// connection has its own queue (a lane) and a cap on calls in flight; lanes
// belong to a client (one address), which has a cap on calls in flight over
// all its connections. A pass takes one call from each lane that may start
// one, round and round, and a turn of the event loop starts at most a bounded
// number, so answers already cached (which resolve at once) still give other
// sockets their turn. A lane can be held (its client is not reading its
// answers): its calls wait until it is let go.
//
// When a lane closes (its client left), its waiting calls are dropped and its
// running calls stop being waited on, but they still count against the client
// until they end: a client cannot leave work behind at the node and start as
// much again.

import { setMaxListeners } from 'node:events';

export interface Lane {
  /** Calls waiting to start. */
  readonly queued: number;
  readonly inFlight: number;
  /** Aborted when the lane closes. */
  readonly signal: AbortSignal;
  /** Held: no call of it starts until this is false again. */
  held: boolean;
  /** Drops what has not started and stops waiting on what has: the client is gone. */
  close(): void;
}

/** Everything one client (one address) has started, over all its lanes. */
export interface ClientGroup {
  readonly inFlight: number;
}

interface Task {
  run: () => void;
  /** Rejects the caller's promise: the lane closed. */
  drop: () => void;
}

class Group implements ClientGroup {
  inFlight = 0;
  /** Lanes that could start a call but for this group's cap. */
  readonly stalled: SchedulerLane[] = [];
}

class SchedulerLane implements Lane {
  readonly tasks: Task[] = [];
  /** Made with the lane's first call that starts: most lanes (an HTTP request each, answered from the cache) start none. */
  running?: Set<Task>;
  inFlight = 0;
  closed = false;
  /** In the scheduler's ready list (or its group's stalled list). */
  listed = false;
  private isHeld = false;
  /**
   * Made when a call first asks for it: most calls are answered from the cache and never
   * listen, and a controller (with its signal, and the event its abort dispatches) was a
   * sixth of the CPU of a cached HTTP call, each request being a lane of its own.
   */
  private controller?: AbortController;

  constructor(
    readonly group: Group,
    private readonly scheduler: FairScheduler,
  ) {}

  get queued(): number {
    return this.tasks.length;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      // Each call in flight listens for the lane closing.
      setMaxListeners(0, this.controller.signal);
      if (this.closed) this.controller.abort('lane closed');
    }
    return this.controller.signal;
  }

  get held(): boolean {
    return this.isHeld;
  }

  set held(value: boolean) {
    if (value === this.isHeld) return;
    this.isHeld = value;
    if (!value) this.scheduler.wake(this);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // Most lanes (an HTTP request each) close with nothing waiting or running: nothing copied, no iterator made.
    if (this.tasks.length > 0) for (const task of this.tasks.splice(0)) task.drop();
    if (this.running !== undefined && this.running.size > 0) {
      for (const task of this.running) task.drop();
      this.running.clear();
    }
    // With a reason of its own: abort() alone builds a DOMException and its stack, a tenth of the CPU of a cached HTTP call.
    this.controller?.abort('lane closed');
  }
}

export interface FairSchedulerOptions {
  /** Calls of one lane in flight at once. */
  perLane: number;
  /** Calls of one client (over all its lanes) in flight at once. */
  perGroup: number;
  /** Calls started in one turn of the event loop, over all lanes. */
  perTurn: number;
}

export class FairScheduler {
  private readonly ready: SchedulerLane[] = [];
  private scheduled = false;

  constructor(private readonly options: FairSchedulerOptions) {}

  group(): ClientGroup {
    return new Group();
  }

  lane(group: ClientGroup): Lane {
    return new SchedulerLane(group as Group, this);
  }

  /**
   * Runs `work` when the lane's turn comes, with the lane's abort signal; never runs
   * it if the lane closes first, and rejects with LaneClosedError once it closes.
   */
  submit<T>(lane: Lane, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const own = lane as SchedulerLane;
    return new Promise<T>((resolve, reject) => {
      if (own.closed) return reject(new LaneClosedError());
      const task: Task = {
        run: () => {
          own.inFlight += 1;
          own.group.inFlight += 1;
          own.running ??= new Set();
          own.running.add(task);
          let done: Promise<T>;
          try {
            done = work(own.signal);
          } catch (error) {
            done = Promise.reject(error);
          }
          done.then(resolve, reject).finally(() => {
            own.running?.delete(task);
            own.inFlight -= 1;
            own.group.inFlight -= 1;
            this.wake(own);
            this.wakeGroup(own.group);
          });
        },
        drop: () => reject(new LaneClosedError()),
      };
      own.tasks.push(task);
      this.wake(own);
    });
  }

  /** Puts a lane back in turn if it has calls to start. */
  wake(lane: SchedulerLane): void {
    if (lane.listed || lane.closed || lane.tasks.length === 0) return;
    lane.listed = true;
    this.ready.push(lane);
    this.schedule();
  }

  private wakeGroup(group: Group): void {
    for (const lane of group.stalled.splice(0)) {
      lane.listed = false;
      this.wake(lane);
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.pump());
  }

  private pump(): void {
    this.scheduled = false;
    let started = 0;
    while (started < this.options.perTurn && this.ready.length > 0) {
      const lane = this.ready.shift()!;
      lane.listed = false;
      // Closed, empty, held or at its own cap: it comes back through wake().
      if (lane.closed || lane.tasks.length === 0 || lane.held || lane.inFlight >= this.options.perLane) continue;
      if (lane.group.inFlight >= this.options.perGroup) {
        lane.listed = true;
        lane.group.stalled.push(lane);
        continue;
      }
      const task = lane.tasks.shift()!;
      started += 1;
      task.run();
      this.wake(lane);
    }
    if (this.ready.length > 0) this.schedule();
  }
}

export class LaneClosedError extends Error {
  constructor() {
    super('the client has gone');
  }
}
