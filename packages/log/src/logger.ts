/** The logging interface kraft libraries depend on (pino satisfies it structurally; CONVENTIONS C7). */
export interface Logger {
  trace(object: object, message?: string): void;
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
  fatal(object: object, message?: string): void;
  child(bindings: Record<string, unknown>): Logger;
  isLevelEnabled(level: string): boolean;
}

const ignore = (): void => {};

/** The default: drops everything. */
export const silentLogger: Logger = {
  trace: ignore,
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  fatal: ignore,
  child: () => silentLogger,
  isLevelEnabled: () => false,
};
