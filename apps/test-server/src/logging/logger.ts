/**
 * The logging interface the server's parts accept (CONVENTIONS C7); pino's logger satisfies it
 * structurally, and tests pass `silentLogger`.
 */
export interface LogFunction {
  (message: string): void;
  (fields: object, message?: string): void;
}

export interface Logger {
  trace: LogFunction;
  debug: LogFunction;
  info: LogFunction;
  warn: LogFunction;
  error: LogFunction;
  fatal: LogFunction;
  child(bindings: Record<string, unknown>): Logger;
  isLevelEnabled(level: string): boolean;
}

const ignore: LogFunction = () => {};

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
