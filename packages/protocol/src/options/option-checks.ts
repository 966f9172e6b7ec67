import { InvalidConfigurationError } from '../errors/invalid-configuration-error.js';
import type { Logger } from '../logger.js';

/**
 * Checks for what a JavaScript caller can get wrong in an options object that TypeScript would
 * have caught: a missing or mistyped option, NaN, a negative count, a plain object where a class
 * instance is needed. Each throws `InvalidConfigurationError` naming the option (`name` reads as
 * `RaftLog.open: config`) at the call, rather than failing deep inside later.
 */

/** How a value reads in a message: `NaN`, `'text'`, `a plain object`, `an array`, `a Foo`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value === null || typeof value !== 'object')
    return typeof value === 'function' ? 'a function' : String(value);
  if (Array.isArray(value)) return 'an array';
  const prototype = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  const className = prototype?.constructor?.name;
  return prototype === null || className === 'Object' || className === undefined
    ? 'a plain object'
    : `a ${className}`;
}

function fail(name: string, expected: string, value: unknown): never {
  throw new InvalidConfigurationError(`${name} must be ${expected}, got ${describeValue(value)}`);
}

/** The options argument itself: an object (undefined only where every option is optional). */
export function checkOptionsObject(name: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(name, 'an options object', value);
}

/** The inclusive range {@link checkInteger} accepts. */
export interface IntegerBounds {
  /** Smallest value allowed. */
  readonly minimum: number;
  /** Largest value allowed; default `Number.MAX_SAFE_INTEGER`. */
  readonly maximum?: number;
}

/** A safe integer in [minimum, maximum]. */
export function checkInteger(name: string, value: unknown, bounds: IntegerBounds): number {
  const maximum = bounds.maximum ?? Number.MAX_SAFE_INTEGER;
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < bounds.minimum ||
    value > maximum
  ) {
    fail(name, `an integer in [${bounds.minimum}, ${maximum}]`, value);
  }
  return value;
}

/**
 * `value` when it is `true` or `false`; a string such as `'true'` is refused (parse it first).
 *
 * @throws {@link InvalidConfigurationError} naming the option otherwise.
 */
export function checkBoolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') fail(name, 'true or false', value);
  return value;
}

/**
 * `value` when it is a string of at least one character (a path, a name).
 *
 * @throws {@link InvalidConfigurationError} naming the option otherwise.
 */
export function checkNonEmptyString(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') fail(name, 'a non-empty string', value);
  return value;
}

/**
 * Checks that `value` is a function (a clock, a callback).
 *
 * @throws {@link InvalidConfigurationError} naming the option otherwise.
 */
export function checkFunction(name: string, value: unknown): void {
  if (typeof value !== 'function') fail(name, 'a function', value);
}

/**
 * An instance of `type` (a plain object with the same fields is refused: it skipped the
 * constructor's checks). Takes classes with private constructors too.
 */
export function checkInstance<T>(
  name: string,
  value: unknown,
  type: { readonly prototype: T; readonly name: string },
  hint = '',
): T {
  const isInstance =
    typeof value === 'object' && value !== null && Object.prototype.isPrototypeOf.call(type.prototype, value);
  if (!isInstance) fail(name, `a ${type.name}${hint}`, value);
  return value as T;
}

/** An object with every one of `methods` (a port implementation: a file system, a log, a logger). */
export function checkMethods(name: string, value: unknown, methods: readonly string[]): void {
  if (typeof value !== 'object' || value === null) fail(name, `an object with ${methods.join(', ')}`, value);
  const missing = methods.filter(
    (method) => typeof (value as Record<string, unknown>)[method] !== 'function',
  );
  if (missing.length > 0) {
    throw new InvalidConfigurationError(
      `${name} must have the methods ${missing.join(', ')} (${describeValue(value)})`,
    );
  }
}

/** Refuses keys outside `known`: a misspelt option would otherwise be ignored silently. */
export function checkKnownKeys(name: string, value: object, known: readonly string[]): void {
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new InvalidConfigurationError(
      `${name} has unknown option(s) ${unknown.join(', ')}; known: ${known.join(', ')}`,
    );
  }
}

/** The methods of the `Logger` interface, for `checkMethods` on a `logger` option. */
export const LOGGER_METHODS = [
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
  'child',
  'isLevelEnabled',
] as const satisfies readonly (keyof Logger)[];
