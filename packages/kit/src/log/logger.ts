import pino, { type Logger } from 'pino';

/**
 * A service's logger: JSON lines with `service` in each. `buffered` (the running service): lines go
 * to stdout in writes of 4 KB rather than one write per request line, flushed at least every second
 * and when the process exits; a process killed outright (SIGKILL, out of memory) loses at most that
 * last second of lines.
 */
export function createLogger(service: string, level: string, options: { buffered?: boolean } = {}): Logger {
  if (!options.buffered) return pino({ level, base: { service } });
  const destination = pino.destination({ dest: 1, minLength: 4096, sync: false });
  setInterval(() => destination.flush(), 1000).unref();
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // nothing left to write, or stdout is gone
    }
  });
  return pino({ level, base: { service } }, destination);
}
