import { KRaftError } from '@kraft/protocol';

/**
 * A compression codec's module could not be loaded in this process (for example a native addon
 * with no build for this platform). Deliberately not a `CompressionError`: the batch may be sound,
 * so readers must not report it as corrupt or truncate the log over it.
 */
export class CodecUnavailableError extends KRaftError {
  readonly specifier: string;

  constructor(specifier: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('CODEC_UNAVAILABLE', `compression codec ${specifier} could not be loaded: ${reason}`, { cause });
    this.specifier = specifier;
  }

  /** Whether `value` is a CodecUnavailableError, by `code`, so it holds across two package copies. */
  static isCodecUnavailableError(value: unknown): value is CodecUnavailableError {
    return KRaftError.isInstance(value) && value.code === 'CODEC_UNAVAILABLE';
  }
}
