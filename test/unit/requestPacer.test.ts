import { RequestPacer } from '../../src/http/requestPacer';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('RequestPacer', () => {
  it('starts requests in arrival order and skips those whose client has gone', async () => {
    const pacer = new RequestPacer();
    const started: number[] = [];
    for (let i = 0; i < 50; i++)
      pacer.enqueue(
        () => started.push(i),
        () => i % 10 === 3,
      );
    expect(pacer.queued).toBe(50);
    while (pacer.queued > 0) await turn();
    expect(started).toEqual(Array.from({ length: 50 }, (_, i) => i).filter((i) => i % 10 !== 3));
  });

  it('lets the event loop turn between batches while a backlog remains', async () => {
    // A clock that only the requests move: each costs 0.25 ms, whatever this machine does.
    let clock = 0;
    const pacer = new RequestPacer(5, () => clock);
    let started = 0;
    const seenByOtherWork: number[] = [];
    // Other I/O, here stood in for by immediates, must get a turn every few milliseconds.
    const watch = () => {
      seenByOtherWork.push(started);
      if (started < 400) setImmediate(watch);
    };
    for (let i = 0; i < 400; i++) {
      pacer.enqueue(
        () => {
          started++;
          clock += 0.25;
        },
        () => false,
      );
    }
    setImmediate(watch);
    while (pacer.queued > 0) await turn();
    expect(started).toBe(400);
    const batches = seenByOtherWork.map((count, i) => count - (seenByOtherWork[i - 1] ?? 0)).filter((n) => n > 0);
    // 400 requests of 0.25 ms with 5 ms turns: many turns, none running the whole queue.
    expect(batches.length).toBeGreaterThan(10);
    expect(Math.max(...batches)).toBeLessThan(200);
    // As the cost is learned, a turn comes to hold about 5 ms of work: 20 such requests.
    expect(batches.at(-2)).toBeGreaterThanOrEqual(20);
    expect(batches.at(-2)).toBeLessThanOrEqual(25);
  });

  it('starts a lone request on the next turn, not later', async () => {
    const pacer = new RequestPacer();
    let started = false;
    pacer.enqueue(
      () => (started = true),
      () => false,
    );
    expect(started).toBe(false);
    await turn();
    expect(started).toBe(true);
  });
});
