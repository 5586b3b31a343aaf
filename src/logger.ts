// Logs as JSON lines. Written through an asynchronous destination, as pino
// recommends for servers: a request's log line is buffered, not a blocking
// write on the hot path; pino flushes what is left when the process exits.
import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'fastcar' } }, pino.destination({ sync: false, minLength: 4096 }));
}
