import { KRaftError } from '@kraft/protocol';

/** A raft setting that cannot be used: a malformed `controller.quorum.voters` entry, a bad timeout. */
export class InvalidConfigurationError extends KRaftError {
  constructor(message: string) {
    super('INVALID_CONFIGURATION', message);
  }
}
