import { KRaftError } from '@kraft/protocol';

/** Bytes of a dumped file that cannot be read or decoded: the file and the byte where it failed. */
export class DumpLogError extends KRaftError {
  readonly file: string;
  /** Byte position within the file. */
  readonly position: number;
  readonly reason: string;

  constructor(file: string, position: number, reason: string, options?: { cause?: unknown }) {
    super('DUMP_LOG_ERROR', `${file}: at byte ${position}: ${reason}`, options);
    this.file = file;
    this.position = position;
    this.reason = reason;
  }

  static isDumpLogError(value: unknown): value is DumpLogError {
    return KRaftError.isInstance(value) && value.code === 'DUMP_LOG_ERROR';
  }
}
