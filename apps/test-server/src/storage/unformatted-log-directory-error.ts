import { KRaftError } from '@kraft/protocol';

/** `--require-formatted` and a log dir without meta.properties: the server does not format it itself. */
export class UnformattedLogDirectoryError extends KRaftError {
  readonly directory: string;

  constructor(directory: string) {
    super(
      'LOG_DIRECTORY_NOT_FORMATTED',
      `log directory ${directory} is not formatted (no meta.properties) and --require-formatted was given: ` +
        'format it first (bin/kraft-storage.sh format --config <file> --cluster-id <id>), or start without --require-formatted',
    );
    this.directory = directory;
  }

  static isUnformattedLogDirectoryError(value: unknown): value is UnformattedLogDirectoryError {
    return KRaftError.isInstance(value) && value.code === 'LOG_DIRECTORY_NOT_FORMATTED';
  }
}
