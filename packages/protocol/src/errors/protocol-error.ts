import { KRaftError } from './kraft-error.js';

/**
 * Malformed bytes on the wire or in a control record: truncated bodies, negative or oversized
 * lengths, over-long varints. `fieldPath` names where decoding stopped (`topics[0].name`).
 * `truncated` says the input ended before what it declared (a cut frame, not a wrong byte).
 */
export class ProtocolError extends KRaftError {
  readonly reason: string;
  readonly truncated: boolean;
  private path: string;

  constructor(reason: string, fieldPath = '', options?: { cause?: unknown; truncated?: boolean }) {
    super('PROTOCOL_ERROR', fieldPath === '' ? reason : `${fieldPath}: ${reason}`, options);
    this.reason = reason;
    this.truncated = options?.truncated === true;
    this.path = fieldPath;
  }

  get fieldPath(): string {
    return this.path;
  }

  /**
   * Prepends `segment` to the field path as the error unwinds through nested structs, and
   * returns this same error: one allocation per failure however deep the field.
   */
  withOuterField(segment: string): ProtocolError {
    if (this.path === '') this.path = segment;
    else this.path = this.path.startsWith('[') ? `${segment}${this.path}` : `${segment}.${this.path}`;
    this.message = `${this.path}: ${this.reason}`;
    return this;
  }

  /** Whether `value` is a ProtocolError, by its `PROTOCOL_ERROR` code (works across package copies). */
  static isProtocolError(value: unknown): value is ProtocolError {
    return KRaftError.isInstance(value) && value.code === 'PROTOCOL_ERROR';
  }
}
