// The proxy's small parts on their own: answers in pieces, client addresses,
// what the client book admits and gives back, slots, merged calls that are given
// up, the scheduler's per-client cap, and what a cache entry is counted as costing.
import { entryCost, ENTRY_OVERHEAD_BYTES, resultText } from '../../src/proxy/answerCache';
import { addressKey, clientKey } from '../../src/proxy/clientAddress';
import { ClientBook, isRefusal, type ClientCaps, type Release, type Refusal } from '../../src/proxy/clientBook';
import { FairScheduler, LaneClosedError } from '../../src/proxy/fairScheduler';
import { MergedCalls } from '../../src/proxy/mergedCalls';
import { Outgoing } from '../../src/proxy/outgoing';
import { judge } from '../../src/proxy/resultShapes';
import { AbandonedCallError, Slots } from '../../src/slots';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Outgoing', () => {
  it('writes the same text in chunks: small pieces joined, big ones cut, never inside a surrogate pair', () => {
    const big = `"${'a'.repeat(9)}😀${'b'.repeat(20)}"`;
    const answer = new Outgoing().push('[').push('{"id":1}').push(',').push(big).push(']');
    const chunks = [...answer.chunks(10)];
    expect(chunks.join('')).toBe(answer.text());
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(10);
    for (const chunk of chunks) expect(Buffer.from(chunk).toString()).toBe(chunk); // no lone surrogate
    expect(answer.bytes).toBe(Buffer.byteLength(answer.text()));
  });
});

describe('client addresses', () => {
  it('is the peer without trusted balancers, whatever X-Forwarded-For says', () => {
    expect(clientKey('10.0.0.5', '1.2.3.4', 0)).toBe('10.0.0.5');
    expect(clientKey('::ffff:10.0.0.5', undefined, 0)).toBe('10.0.0.5');
  });

  it('is the entry the outermost trusted balancer appended, counted from the right', () => {
    expect(clientKey('10.0.0.5', 'spoofed, 1.2.3.4', 1)).toBe('1.2.3.4');
    expect(clientKey('10.0.0.5', '9.9.9.9, 1.2.3.4, 10.0.0.4', 2)).toBe('1.2.3.4');
    expect(clientKey('10.0.0.5', ['9.9.9.9', '1.2.3.4:5555'], 1)).toBe('1.2.3.4');
    expect(clientKey('10.0.0.5', 'not-an-address', 1)).toBe('10.0.0.5');
  });

  it('takes an IPv6 client as its /64', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });
});

describe('ClientBook', () => {
  const limits: ClientCaps = { maxConnectionsPerClient: 2, maxRequestsPerClient: 3, maxSubscriptionsPerClient: 2, requestsAreConnections: false };
  const bookWith = (overrides: Partial<ClientCaps> = {}) => {
    const scheduler = new FairScheduler({ perLane: 10, perGroup: 10, perTurn: 64 });
    return new ClientBook(
      { ...limits, ...overrides },
      () => scheduler.group(),
      () => new Slots(10),
    );
  };
  const admitted = (result: Release | Refusal): Release => {
    if (isRefusal(result)) throw new Error(`refused: ${result.message}`);
    return result;
  };

  it("holds each address to its caps, others' counts apart, and counts down on release", () => {
    const book = bookWith();
    const client = book.client('1.2.3.4');
    const connections = [admitted(book.admit(client, 'connection')), admitted(book.admit(client, 'connection'))];
    expect(book.admit(client, 'connection')).toEqual({ reason: 'connections', message: 'Too many connections from this address (at most 2)' });
    expect(isRefusal(book.admit(book.client('5.6.7.8'), 'connection'))).toBe(false); // another address has its own share
    const subscriptions = [admitted(book.admit(client, 'subscription')), admitted(book.admit(client, 'subscription'))];
    expect(book.admit(client, 'subscription')).toEqual({ reason: 'subscriptions', message: 'Too many subscriptions from this address (at most 2)' });
    const requests = [1, 2, 3].map(() => admitted(book.admit(client, 'request')));
    expect(book.admit(client, 'request')).toEqual({ reason: 'requests', message: 'Too many requests in progress from this address (at most 3)' });
    expect([client.connections, client.requests, client.subscriptions]).toEqual([2, 3, 2]);
    connections[0]();
    expect(client.connections).toBe(1);
    expect(isRefusal(book.admit(client, 'connection'))).toBe(false); // the place given back is taken again
    for (const release of [...subscriptions, ...requests]) release();
    expect([client.connections, client.requests, client.subscriptions]).toEqual([2, 0, 0]);
  });

  it('counts a release once, however often it is called', () => {
    const book = bookWith();
    const client = book.client('1.2.3.4');
    const first = admitted(book.admit(client, 'subscription'));
    const second = admitted(book.admit(client, 'subscription'));
    first();
    first();
    first();
    expect(client.subscriptions).toBe(1); // the second is still held
    second();
    second();
    expect(client.subscriptions).toBe(0);
  });

  it('behind balancers, takes HTTP requests in progress as connections', () => {
    const book = bookWith({ requestsAreConnections: true, maxConnectionsPerClient: 2, maxRequestsPerClient: 10 });
    const client = book.client('1.2.3.4');
    const releases = [admitted(book.admit(client, 'request')), admitted(book.admit(client, 'request'))];
    expect(book.admit(client, 'request')).toEqual({ reason: 'connections', message: 'Too many connections from this address (at most 2)' });
    releases[1]();
    expect(isRefusal(book.admit(client, 'request'))).toBe(false);
  });

  it('forgets an address once everything it held is given back, and not before', () => {
    const book = bookWith();
    const releases = (['connection', 'request', 'subscription'] as const).map((holding) => admitted(book.admit(book.client('1.2.3.4'), holding)));
    book.client('5.6.7.8'); // known, holding nothing
    book.prune();
    expect(book.size).toBe(1);
    for (const release of releases) {
      release();
      release();
    }
    const client = book.client('1.2.3.4');
    expect([client.connections, client.requests, client.subscriptions]).toEqual([0, 0, 0]);
    book.prune();
    expect(book.size).toBe(0);
  });
});

describe('Slots', () => {
  it('hands a slot given back to the next waiter, and drops a waiter whose caller left', async () => {
    const slots = new Slots(1);
    await slots.take();
    const left = new AbortController();
    const leaving = slots.take(left.signal);
    const staying = slots.take();
    left.abort();
    await expect(leaving).rejects.toBeInstanceOf(AbandonedCallError);
    slots.give();
    await staying;
    expect([slots.inUse, slots.queued]).toEqual([1, 0]);
  });

  it('runs tasks at most its count at once, in the order they came, and gives the slot back when a task fails', async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (n: number) => async () => {
      started.push(n);
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      if (n === 1) throw new Error('task 1 fails');
      return n;
    };
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => slots.run(task(n))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect([most, started, slots.inUse, slots.queued]).toEqual([2, [1, 2, 3, 4, 5], 0, 0]);
  });
});

describe('MergedCalls', () => {
  it('gives a shared call up only when every caller has left, and starts afresh after', async () => {
    const merged = new MergedCalls<string>();
    const signals: AbortSignal[] = [];
    const work = (signal: AbortSignal) => {
      signals.push(signal);
      return new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('given up')));
    };
    const [a, b] = [new AbortController(), new AbortController()];
    const first = merged.run('k', work, a.signal);
    const second = merged.run('k', work, b.signal);
    expect([first.joined, second.joined]).toEqual([false, true]);
    a.abort();
    expect(signals[0].aborted).toBe(false);
    b.abort();
    expect(signals[0].aborted).toBe(true);
    expect(merged.run('k', work, new AbortController().signal).joined).toBe(false);
  });
});

describe('FairScheduler', () => {
  it("caps a client's calls over all its lanes, and counts a left lane's running calls until they end", async () => {
    const scheduler = new FairScheduler({ perLane: 10, perGroup: 2, perTurn: 64 });
    const client = scheduler.group();
    const [a, b] = [scheduler.lane(client), scheduler.lane(client)];
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const slow = (name: string) => () => {
      started.push(name);
      return new Promise<string>((resolve) => finish.set(name, () => resolve(name)));
    };
    const [a1, a2, b1] = [scheduler.submit(a, slow('a1')), scheduler.submit(a, slow('a2')), scheduler.submit(b, slow('b1'))];
    const other = scheduler.submit(scheduler.lane(scheduler.group()), async () => 'other');
    await tick();
    expect(started).toEqual(['a1', 'b1']);
    expect(await other).toBe('other'); // another client is not held up
    finish.get('b1')!();
    await b1;
    await tick();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    a.close();
    await expect(a1).rejects.toBeInstanceOf(LaneClosedError); // not waited on
    await expect(a2).rejects.toBeInstanceOf(LaneClosedError);
    expect(client.inFlight).toBe(2); // but still counted: the work goes on
    finish.get('a1')!();
    finish.get('a2')!();
    await tick();
    expect(client.inFlight).toBe(0);
  });

  it('starts no call of a held lane until it is let go', async () => {
    const scheduler = new FairScheduler({ perLane: 10, perGroup: 10, perTurn: 64 });
    const lane = scheduler.lane(scheduler.group());
    lane.held = true;
    let started = false;
    const call = scheduler.submit(lane, async () => (started = true));
    await tick();
    expect(started).toBe(false);
    lane.held = false;
    await call;
    expect(started).toBe(true);
  });
});

describe('what the cache keeps and counts', () => {
  it('counts a two-byte string double, and an entry its overhead', () => {
    const ascii = entryCost('k', resultText('abc'));
    expect(ascii).toBe(1 + 5 + ENTRY_OVERHEAD_BYTES);
    expect(entryCost('k', resultText('äbc'))).toBe(1 + 2 * 5 + ENTRY_OVERHEAD_BYTES);
  });

  it('keeps no empty list', () => {
    expect(judge('state_getKeysPaged', [], [])).toBe('serve');
    expect(judge('state_getKeysPaged', [], ['0x00'])).toBe('cache');
    expect(judge('state_queryStorageAt', [], [])).toBe('serve');
  });
});
