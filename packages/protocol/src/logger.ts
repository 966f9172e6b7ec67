/**
 * The one logging interface every kraft library accepts (CONVENTIONS C7). pino's logger satisfies
 * it structurally; libraries default to `silentLogger` and only apps create a real one. Hot paths
 * pass an object first and a constant message, and guard computed fields with `isLevelEnabled`.
 */
export interface Logger {
  /** Per-message detail (each request, each batch); off in production. */
  trace(object: object, message?: string): void;
  /** State changes worth seeing while debugging (a truncation, a segment roll). */
  debug(object: object, message?: string): void;
  /** Rare events an operator wants to see (a new leader, recovery done). */
  info(object: object, message?: string): void;
  /** Something went wrong and was handled (a corrupt file rebuilt, a peer unreachable). */
  warn(object: object, message?: string): void;
  /** A failure the caller could not handle itself; pass the error as `err` in `object`. */
  error(object: object, message?: string): void;
  /** The process cannot go on (lost durable state); written just before exiting. */
  fatal(object: object, message?: string): void;
  /** A logger that adds `bindings` (such as `{ nodeId }`) to every entry it writes. */
  child(bindings: Record<string, unknown>): Logger;
  /** Whether entries at `level` (`'trace'` ... `'fatal'`) are written, to skip costly fields. */
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
