import { pino } from 'pino';
import pretty from 'pino-pretty';

export interface RootLogger {
  readonly logger: pino.Logger;
  /**
   * Resolves once every line logged so far is written, a write in flight included; call before
   * `process.exit`. Bounded by {@link FLUSH_TIMEOUT_MS}: a reader that stopped reading never holds
   * the exit.
   */
  flush(): Promise<void>;
  /** Set when `LOG_LEVEL` held something pino does not know (the logger then uses info). */
  readonly invalidLevel: string | undefined;
}

const DEFAULT_LEVEL = 'info';
const STDERR_FD = 2;
/** The longest `flush()` waits for the log's writes to finish. */
export const FLUSH_TIMEOUT_MS = 2_000;
const { chindingsSym } = pino.symbols;

/**
 * pino serialises a child's bindings once, appended to its parent's (`,"nodeId":1,"component":
 * "raft"`), so a child that rebinds a key its parent bound (`component: 'raft'` →
 * `component: 'quorum-state'`) would repeat that key on every line: legal JSON for few parsers,
 * and ambiguous to every reader. Rewritten once per child, the last binding wins in its first
 * place, as `JSON.parse` would read it; log calls pay nothing.
 */
function dropRepeatedBindings(child: pino.Logger): void {
  const holder = child as unknown as Record<symbol, string>;
  const bindingsText = holder[chindingsSym] ?? '';
  if (bindingsText === '') return;
  const merged: unknown = JSON.parse(`{${bindingsText.slice(1)}}`);
  holder[chindingsSym] = `,${JSON.stringify(merged).slice(1, -1)}`;
}

/** The options of the root logger; exported so a test can give it another destination. */
export function rootLoggerOptions(level: string): pino.LoggerOptions {
  return { level, onChild: dropRepeatedBindings };
}

/**
 * The one place the server calls `pino()` (CONVENTIONS C7). Logs go to stderr, so stdout carries
 * only the stats lines: human-readable through pino-pretty on a terminal, JSON lines otherwise.
 * `LOG_LEVEL` picks the level (trace, debug, info, warn, error, fatal, silent).
 */
export function createRootLogger(environment: {
  readonly logLevel: string | undefined;
  readonly stderrIsTerminal: boolean;
  /** Where the JSON lines go: stderr unless a test gives another file descriptor. */
  readonly fd?: number;
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
    return { logger: pino(rootLoggerOptions(level), stream), flush: async () => {}, invalidLevel };
  }
  // Asynchronous writes keep logging off the raft loop's critical path. minLength 1 still writes
  // every line at once, and makes `flush(callback)` wait for the write in flight: with 0 it calls
  // back at once, and the flushSync used before exit then wrote the buffered lines ahead of that
  // write (an operator read "raft driver stopped" after "raft server stopped cleanly") or lost it.
  const destination = pino.destination({ fd: environment.fd ?? STDERR_FD, sync: false, minLength: 1 });
  const logger = pino(rootLoggerOptions(level), destination);
  return { logger, flush: () => writtenOut(destination), invalidLevel };
}

function writtenOut(
  destination: pino.DestinationStream & { flush(callback: () => void): void },
): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
    destination.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
