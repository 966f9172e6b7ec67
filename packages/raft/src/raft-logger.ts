/**
 * The logger interface the raft core depends on (CONVENTIONS C7): pino satisfies it
 * structurally; the default is silent.
 */
export interface RaftLogger {
  trace(object: object, message: string): void;
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
  fatal(object: object, message: string): void;
  isLevelEnabled(level: string): boolean;
  child(bindings: Record<string, unknown>): RaftLogger;
}

const ignore = (): void => {};

export const noopLogger: RaftLogger = {
  trace: ignore,
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  fatal: ignore,
  isLevelEnabled: () => false,
  child: () => noopLogger,
};
