import { KRaftError } from '@kraft/protocol';

/**
 * An `--initial-controllers` entry that is not `id@host:port:directoryId`. The reason is Kafka's
 * `DynamicVoter.parse` message; the entry is the text it was found in.
 */
export class DynamicVoterError extends KRaftError {
  readonly entry: string;
  readonly reason: string;

  constructor(entry: string, reason: string, options?: { cause?: unknown }) {
    super('INVALID_DYNAMIC_VOTER', entry === '' ? reason : `${reason} (in '${entry}')`, options);
    this.entry = entry;
    this.reason = reason;
  }

  static isDynamicVoterError(value: unknown): value is DynamicVoterError {
    return KRaftError.isInstance(value) && value.code === 'INVALID_DYNAMIC_VOTER';
  }
}
