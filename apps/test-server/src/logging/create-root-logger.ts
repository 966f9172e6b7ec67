import { pino } from 'pino';

export interface RootLogger {
  readonly logger: pino.Logger;
  /**
   * Resolves once every line logged so far is written (or after `FLUSH_TIMEOUT_MS`); await it
   * before `process.exit`.
   */
  flush(): Promise<void>;
  /** Set when `LOG_LEVEL` held something pino does not know (the logger then uses info). */
  readonly invalidLevel: string | undefined;
}

const DEFAULT_LEVEL = 'info';
const STDERR_FD = 2;
/** A stuck stderr (a full pipe nobody reads) must not keep the process from exiting. */
const FLUSH_TIMEOUT_MS = 2_000;
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
 * `LOG_LEVEL` picks the level (trace, debug, info, warn, error, fatal, silent). pino-pretty is
 * loaded only for a terminal: about 30 ms of every start-up otherwise (ADR 0046).
 */
export async function createRootLogger(environment: {
  readonly logLevel: string | undefined;
  readonly stderrIsTerminal: boolean;
}): Promise<RootLogger> {
  const requested = environment.logLevel?.trim().toLowerCase();
  const known = requested !== undefined && (requested === 'silent' || requested in pino.levels.values);
  const level = known ? (requested as string) : DEFAULT_LEVEL;
  const invalidLevel =
    requested !== undefined && requested !== '' && !known ? environment.logLevel : undefined;
  if (environment.stderrIsTerminal) {
    const { default: pretty } = await import('pino-pretty');
    const stream = pretty({
      destination: STDERR_FD,
      sync: true,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
    });
    return { logger: pino(rootLoggerOptions(level), stream), flush: async () => {}, invalidLevel };
  }
  // Asynchronous writes keep logging off the raft loop's critical path. `flushSync()` would skip
  // the chunk an asynchronous write still holds (queued on libuv's thread pool, which a busy
  // machine or a slow disk delays): exiting then loses those lines, or leaves them after later
  // ones. `flush(callback)` waits for it; with `minLength: 0` it would call back at once, and
  // with 1 every line (never a single byte) still goes out at once.
  const destination = pino.destination({ fd: STDERR_FD, sync: false, minLength: 1 });
  const logger = pino(rootLoggerOptions(level), destination);
  return { logger, flush: () => flushDestination(destination), invalidLevel };
}

function flushDestination(destination: ReturnType<typeof pino.destination>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
    // An error (fsync on a pipe: EINVAL) still means the writes before it finished.
    destination.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
