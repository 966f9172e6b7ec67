const KRAFT_ERROR_MARKER = Symbol.for('kraft.error');

/**
 * Base of every operational error kraft raises. It carries a stable `code` and an optional
 * `cause`, and a cross-realm marker so `KRaftError.isInstance` works even when two copies of a
 * package are loaded (instanceof would not).
 */
export class KRaftError extends Error {
  readonly [KRAFT_ERROR_MARKER] = true;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  /**
   * Whether `value` is any kraft error, by the `Symbol.for('kraft.error')` marker rather than
   * `instanceof`, so it holds across two loaded copies of a package. Narrow further by `code` (or
   * by a subclass's own guard, such as `ProtocolError.isProtocolError`): called on a subclass,
   * this still matches every kraft error.
   */
  static isInstance(value: unknown): value is KRaftError {
    return typeof value === 'object' && value !== null && KRAFT_ERROR_MARKER in value;
  }
}
