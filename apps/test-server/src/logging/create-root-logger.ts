import { pino } from 'pino';
import pretty from 'pino-pretty';

export interface RootLogger {
  readonly logger: pino.Logger;
  /** Writes out what is buffered; call before `process.exit`. */
  flush(): void;
  /** Set when `LOG_LEVEL` held something pino does not know (the logger then uses info). */
  readonly invalidLevel: string | undefined;
}

const DEFAULT_LEVEL = 'info';
const STDERR_FD = 2;

/**
 * The one place the server calls `pino()` (CONVENTIONS C7). Logs go to stderr, so stdout carries
 * only the stats lines: human-readable through pino-pretty on a terminal, JSON lines otherwise.
 * `LOG_LEVEL` picks the level (trace, debug, info, warn, error, fatal, silent).
 */
export function createRootLogger(environment: {
  readonly logLevel: string | undefined;
  readonly stderrIsTerminal: boolean;
}): RootLogger {
  const requested = environment.logLevel?.trim().toLowerCase();
  const known = requested !== undefined && (requested === 'silent' || requested in pino.levels.values);
  const level = known ? (requested as string) : DEFAULT_LEVEL;
  const invalidLevel =
    requested !== undefined && requested !== '' && !known ? environment.logLevel : undefined;
  if (environment.stderrIsTerminal) {
    const stream = pretty({
      destination: STDERR_FD,
      sync: true,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
    });
    return { logger: pino({ level }, stream), flush: () => {}, invalidLevel };
  }
  // Asynchronous writes keep logging off the raft loop's critical path; flushed before exit.
  const destination = pino.destination({ fd: STDERR_FD, sync: false });
  const logger = pino({ level }, destination);
  return { logger, flush: () => destination.flushSync(), invalidLevel };
}
