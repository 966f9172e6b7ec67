import { KRaftError } from '@kraft/protocol';

/**
 * A failure of `kraft-metadata-quorum` that one line explains (Kafka's `TerseException`): a
 * command config or controller config it cannot use, a directory id it cannot read, an answer it
 * cannot make sense of. Printed without a stack; the tool exits 1.
 */
export class MetadataQuorumError extends KRaftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('METADATA_QUORUM_ERROR', message, options);
  }

  static isMetadataQuorumError(value: unknown): value is MetadataQuorumError {
    return KRaftError.isInstance(value) && value.code === 'METADATA_QUORUM_ERROR';
  }
}
