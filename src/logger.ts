// Logs as JSON lines. Written through an asynchronous destination, as pino
// recommends for servers: a request's log line is buffered, not a blocking
// write on the hot path; pino flushes what is left when the process exits.
import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'fastcar' } }, flushingDestination());
}

/**
 * pino's asynchronous destination, whose flush always writes. sonic-boom skips a flush asked
 * while an earlier write is still out, and what it holds then waits for 4 KB more lines: an
 * operator could miss "Redis is back" for hours. So a flush is asked once more when that write is done.
 */
function flushingDestination() {
  const destination = pino.destination({ sync: false, minLength: 4096 });
  const flushBuffered = destination.flush.bind(destination);
  const again = () => {
    try {
      flushBuffered();
    } catch {
      // Closed meanwhile: nothing left to write.
    }
  };
  destination.flush = (done?: (error?: Error) => unknown) => {
    flushBuffered(done);
    destination.once('write', () => setImmediate(again));
  };
  return destination;
}

/**
 * A node URL fit for logs: scheme, host and port only. Hosted providers put the API
 * key in the path, the query or the credentials.
 */
export function urlForLogs(url: string): string {
  try {
    const parsed = new URL(url);
    const hidden = parsed.username || parsed.password || (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search;
    return `${parsed.protocol}//${parsed.host}${hidden ? '/…' : ''}`;
  } catch {
    return '(unreadable URL)';
  }
}
