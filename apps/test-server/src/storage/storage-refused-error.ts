import { KRaftError } from '@kraft/protocol';

/**
 * `kraft-storage.sh` refuses to do what it was asked (Kafka's `TerseFailure` and
 * `FormatterException`): a flag the config does not allow, a directory already formatted or
 * formatted for another cluster or node. Raised before anything is written; the tool prints the
 * message and exits 1.
 */
export class StorageRefusedError extends KRaftError {
  /** The log directory the refusal is about, when it is about one. */
  readonly directory: string | undefined;

  constructor(message: string, options?: { directory?: string; cause?: unknown }) {
    super('STORAGE_REFUSED', message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.directory = options?.directory;
  }

  static isStorageRefusedError(value: unknown): value is StorageRefusedError {
    return KRaftError.isInstance(value) && value.code === 'STORAGE_REFUSED';
  }
}
