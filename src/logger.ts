// Logs as JSON lines. Written through an asynchronous destination, as pino
// recommends for servers: a request's log line is buffered, not a blocking
// write on the hot path; pino flushes what is left when the process exits.
import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'fastcar' } }, pino.destination({ sync: false, minLength: 4096 }));
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
