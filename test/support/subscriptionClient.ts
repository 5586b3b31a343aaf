// A JSON-RPC client over WebSocket for tests that follow subscriptions: each
// answer whole (result or error), and every notification kept by its
// subscription id, to be waited for by what it says.
import { WebSocket } from 'ws';

export interface Answer {
  result?: unknown;
  error?: { code: number; message: string };
}

export interface SubscriptionClient {
  /** The answer as it came, error included. */
  request(method: string, params?: unknown[]): Promise<Answer>;
  /** The result; an error answer rejects. */
  call<T>(method: string, params?: unknown[]): Promise<T>;
  /** The notifications of a subscription so far. */
  events(subscription: string): unknown[];
  /** Resolves with the first notification of `subscription` that `matches`, already here or to come; rejects after `ms`. */
  next<T>(subscription: string, matches: (event: T) => boolean, ms?: number): Promise<T>;
  /** Resolves when the socket closes. */
  readonly closed: Promise<void>;
  close(): void;
}

/** `headers` go with the upgrade request (X-Forwarded-For, as a balancer in front would write it). */
export async function connectSubscriber(url: string, headers: Record<string, string> = {}): Promise<SubscriptionClient> {
  const socket = new WebSocket(url, { maxPayload: 64 * 1024 * 1024, headers });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let nextId = 0;
  const pending = new Map<number, (answer: Answer) => void>();
  const notifications = new Map<string, unknown[]>();
  const waiters = new Set<() => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; params?: { subscription: string; result: unknown } } & Answer;
    if (message.id !== undefined) {
      pending.get(message.id)?.(message);
      pending.delete(message.id);
      return;
    }
    if (!message.params) return;
    const list = notifications.get(message.params.subscription) ?? [];
    list.push(message.params.result);
    notifications.set(message.params.subscription, list);
    for (const wake of [...waiters]) wake();
  });
  const request = (method: string, params: unknown[] = []) =>
    new Promise<Answer>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  return {
    request,
    async call<T>(method: string, params: unknown[] = []) {
      const answer = await request(method, params);
      if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
      return answer.result as T;
    },
    events: (subscription) => notifications.get(subscription) ?? [],
    next<T>(subscription: string, matches: (event: T) => boolean, ms = 20_000) {
      return new Promise<T>((resolve, reject) => {
        const look = () => {
          const found = (notifications.get(subscription) ?? []).find((event) => matches(event as T));
          if (found === undefined) return false;
          waiters.delete(look);
          clearTimeout(timer);
          resolve(found as T);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(new Error(`no matching notification of ${subscription} in ${ms} ms: ${JSON.stringify(notifications.get(subscription) ?? [])}`));
        }, ms);
        if (!look()) waiters.add(look);
      });
    },
    closed,
    close: () => socket.close(),
  };
}
