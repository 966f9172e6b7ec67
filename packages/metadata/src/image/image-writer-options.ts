import { UnwritableMetadataError } from '../errors/unwritable-metadata-error.js';

/** metadata.version 3.3-IV3: RegisterBrokerRecord v1 carries inControlledShutdown (KIP-841). */
const CONTROLLED_SHUTDOWN_STATE_METADATA_VERSION = 7;
/** metadata.version 3.4-IV0: RegisterBrokerRecord v2 carries isMigratingZkBroker (KIP-866). */
const MIGRATION_METADATA_VERSION = 8;
/** metadata.version 4.3-IV0: RegisterBrokerRecord v4 carries the cordoned log directories. */
const CORDONED_LOG_DIRS_METADATA_VERSION = 30;
/** metadata.version 3.7-IV2: PartitionRecord v1 and later carry the replicas' directories (KIP-858). */
const DIRECTORY_ASSIGNMENT_METADATA_VERSION = 17;
/** metadata.version 4.0-IV1: PartitionRecord v2 carries the ELR and last known ELR (KIP-966). */
const ELR_METADATA_VERSION = 23;

/**
 * How an image is written as records (Kafka's `ImageWriterOptions`): the metadata.version that
 * selects each record's version, and what to do when the image holds something that version
 * cannot represent. By default such a loss throws `UnwritableMetadataError`, as in Kafka.
 */
export class ImageWriterOptions {
  /**
   * Writes at the highest record versions: for an image without metadata.version (one built in a
   * test from records alone); a real cluster's image always has one.
   */
  static readonly LATEST = new ImageWriterOptions(undefined);

  /** The metadata.version feature level; undefined writes every record at its highest version. */
  readonly metadataVersion: number | undefined;
  private readonly lossHandler: (loss: string) => void;

  constructor(metadataVersion: number | undefined, lossHandler?: (loss: string) => void) {
    this.metadataVersion = metadataVersion;
    this.lossHandler =
      lossHandler ??
      ((loss) => {
        throw new UnwritableMetadataError(metadataVersion ?? -1, loss);
      });
  }

  /** Whether PartitionRecords carry directories (metadata.version 3.7-IV2, level 17, or later). */
  isDirectoryAssignmentSupported(): boolean {
    return this.isAtLeast(DIRECTORY_ASSIGNMENT_METADATA_VERSION);
  }

  /** Whether PartitionRecords carry the ELRs (metadata.version 4.0-IV1, level 23, or later). */
  isElrSupported(): boolean {
    return this.isAtLeast(ELR_METADATA_VERSION);
  }

  /** Whether RegisterBrokerRecords carry inControlledShutdown (level 7 or later). */
  isInControlledShutdownStateSupported(): boolean {
    return this.isAtLeast(CONTROLLED_SHUTDOWN_STATE_METADATA_VERSION);
  }

  /** Whether RegisterBrokerRecords carry isMigratingZkBroker (level 8 or later). */
  isMigrationSupported(): boolean {
    return this.isAtLeast(MIGRATION_METADATA_VERSION);
  }

  /** Whether RegisterBrokerRecords carry the cordoned log directories (level 30 or later). */
  isCordonedLogDirsSupported(): boolean {
    return this.isAtLeast(CORDONED_LOG_DIRS_METADATA_VERSION);
  }

  /** Kafka's `MetadataVersion.registerBrokerRecordVersion`. */
  registerBrokerRecordVersion(): number {
    if (this.isCordonedLogDirsSupported()) return 4;
    if (this.isDirectoryAssignmentSupported()) return 3;
    if (this.isMigrationSupported()) return 2;
    return this.isInControlledShutdownStateSupported() ? 1 : 0;
  }

  /** Kafka's `MetadataVersion.partitionRecordVersion`. */
  partitionRecordVersion(): number {
    if (this.isElrSupported()) return 2;
    return this.isDirectoryAssignmentSupported() ? 1 : 0;
  }

  /** Reports that `loss` cannot be written at this metadata.version. */
  handleLoss(loss: string): void {
    this.lossHandler(loss);
  }

  private isAtLeast(featureLevel: number): boolean {
    return this.metadataVersion === undefined || this.metadataVersion >= featureLevel;
  }
}
