import { KRaftError } from '@kraft/protocol';

/** `createSnapshot` for an id that is not a committed, batch-aligned offset of the log's epoch. */
export class InvalidSnapshotError extends KRaftError {
  constructor(message: string) {
    super('INVALID_SNAPSHOT', message);
  }
}
