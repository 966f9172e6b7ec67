import { KRaftError } from './kraft-error.js';

/**
 * Malformed bytes on the wire or in a control record: truncated bodies, negative or oversized
 * lengths, over-long varints. `fieldPath` names where decoding stopped (`topics[0].name`).
 */
export class ProtocolError extends KRaftError {
  readonly fieldPath: string;
  readonly reason: string;

  constructor(reason: string, fieldPath = '', options?: { cause?: unknown }) {
    super('PROTOCOL_ERROR', fieldPath === '' ? reason : `${fieldPath}: ${reason}`, options);
    this.reason = reason;
    this.fieldPath = fieldPath;
  }

  /** Returns the same error with `segment` prepended to its field path. */
  withOuterField(segment: string): ProtocolError {
    const fieldPath = this.fieldPath === '' ? segment : `${segment}.${this.fieldPath}`;
    return new ProtocolError(this.reason, fieldPath, { cause: this.cause });
  }

  static isProtocolError(value: unknown): value is ProtocolError {
    return KRaftError.isInstance(value) && value.code === 'PROTOCOL_ERROR';
  }
}
