/**
 * The one logging interface every kraft library accepts (CONVENTIONS C7). pino's logger satisfies
 * it structurally; libraries default to `silentLogger` and only apps create a real one. Hot paths
 * pass an object first and a constant message, and guard computed fields with `isLevelEnabled`.
 */
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

/** Drops everything: the default when the caller gives no logger. */
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
