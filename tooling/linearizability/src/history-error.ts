const KRAFT_ERROR_MARKER = Symbol.for('kraft.error');

/**
 * A history that cannot be checked: a malformed line, an operation returning before its call, an
 * ok for an operation never invoked. It carries the project's error marker and `code` like every
 * KRaftError; it does not extend the class itself because tooling packages depend on no runtime
 * package (a checker that imported @kraft/protocol would sit above the code it checks).
 */
export class HistoryError extends Error {
  readonly [KRAFT_ERROR_MARKER] = true;
  readonly code: 'INVALID_OPERATION' | 'INVALID_HISTORY_LINE' | 'INVALID_HISTORY' | 'HISTORY_TOO_LARGE';

  constructor(code: HistoryError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  static isInstance(value: unknown): value is HistoryError {
    return value instanceof Error && value.name === 'HistoryError' && KRAFT_ERROR_MARKER in value;
  }
}
