// Starts the calls of many connections in turn, so that one connection's ten
// thousand calls cannot keep another's single call waiting behind them. Each
// connection has its own queue and a cap on calls in flight; a pass takes one
// call from each connection that may start one, round and round, and a turn of
// the event loop starts at most a bounded number, so answers already cached
// (which resolve at once) still give other sockets their turn.

export interface Lane {
  /** Calls waiting to start. */
  readonly queued: number;
  readonly inFlight: number;
  /** Drops what has not started: the client is gone. */
  close(): void;
}

interface Task {
  run: () => Promise<void>;
  cancel: () => void;
}

class ClientLane implements Lane {
  readonly tasks: Task[] = [];
  inFlight = 0;
  closed = false;

  constructor(private readonly onClose: (lane: ClientLane) => void) {}

  get queued(): number {
    return this.tasks.length;
  }

  close(): void {
    this.closed = true;
    for (const task of this.tasks.splice(0)) task.cancel();
    this.onClose(this);
  }
}

export interface FairSchedulerOptions {
  /** Calls of one connection in flight at once. */
  perLane: number;
  /** Calls started in one turn of the event loop, over all connections. */
  perTurn: number;
}

export class FairScheduler {
  private readonly ready: ClientLane[] = [];
  private scheduled = false;

  constructor(private readonly options: FairSchedulerOptions) {}

  lane(): Lane {
    return new ClientLane((lane) => {
      const at = this.ready.indexOf(lane);
      if (at >= 0) this.ready.splice(at, 1);
    });
  }

  /** Runs `work` when the lane's turn comes; never runs it if the lane is closed first. */
  submit<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    const own = lane as ClientLane;
    return new Promise<T>((resolve, reject) => {
      if (own.closed) return reject(new LaneClosedError());
      own.tasks.push({
        run: () =>
          work().then(resolve, reject).finally(() => {
            own.inFlight -= 1;
            if (own.tasks.length > 0 && !this.ready.includes(own)) this.ready.push(own);
            this.schedule();
          }),
        cancel: () => reject(new LaneClosedError()),
      });
      if (!this.ready.includes(own)) this.ready.push(own);
      this.schedule();
    });
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
      if (lane.closed || lane.tasks.length === 0) continue;
      if (lane.inFlight >= this.options.perLane) continue; // re-enters `ready` when a call of it ends
      const task = lane.tasks.shift()!;
      lane.inFlight += 1;
      started += 1;
      void task.run();
      if (lane.tasks.length > 0) this.ready.push(lane);
    }
    if (this.ready.some((lane) => lane.tasks.length > 0 && lane.inFlight < this.options.perLane)) this.schedule();
  }
}

export class LaneClosedError extends Error {
  constructor() {
    super('the client has gone');
  }
}
