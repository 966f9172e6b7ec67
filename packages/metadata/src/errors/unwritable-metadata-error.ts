import { KRaftError } from '@kraft/protocol';

/**
 * Part of an image cannot be written at the image's metadata.version, so a snapshot of it would
 * lose that part (Kafka's `UnwritableMetadataException`): for example replicas placed in
 * directories when the metadata.version predates directory assignment. The snapshot is not
 * written.
 */
export class UnwritableMetadataError extends KRaftError {
  readonly metadataVersion: number;
  readonly loss: string;

  constructor(metadataVersion: number, loss: string) {
    super(
      'UNWRITABLE_METADATA',
      `metadata would be lost: ${loss} cannot be represented at metadata.version ${metadataVersion}`,
    );
    this.metadataVersion = metadataVersion;
    this.loss = loss;
  }
}
