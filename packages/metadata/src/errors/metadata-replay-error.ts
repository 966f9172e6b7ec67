import { KRaftError } from '@kraft/protocol';

/**
 * A record that cannot be applied to the image it was replayed on: a partition of an unknown
 * topic, a fence for a broker epoch that is not registered, the removal of an ACL that does not
 * exist (Kafka throws from its deltas in the same cases). The loader reports it to its fault
 * handler with the record's offset.
 */
export class MetadataReplayError extends KRaftError {
  constructor(message: string) {
    super('METADATA_REPLAY', message);
  }
}
