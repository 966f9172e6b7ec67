import { KRaftError } from '@kraft/protocol';

/**
 * Compressed bytes that a codec cannot decode (bad frame magic, truncated block, bad back
 * reference), or a codec that is unknown or not initialised. Readers of record batches turn it
 * into a `CorruptRecordError` carrying the batch's offset and position.
 */
export class CompressionError extends KRaftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('COMPRESSION_ERROR', message, options);
  }

  /**
   * Whether `value` is a CompressionError, by its `code` rather than `instanceof`, so the test holds
   * when two copies of this package are loaded.
   */
  static isCompressionError(value: unknown): value is CompressionError {
    return KRaftError.isInstance(value) && value.code === 'COMPRESSION_ERROR';
  }
}
