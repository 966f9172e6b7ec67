import type { OffsetAndEpoch } from '@kraft/raft';

/**
 * Where an image came from (Kafka's `MetadataProvenance`): the last log offset it contains, the
 * epoch of that offset's batch, and that batch's append time. A snapshot of the image ends at the
 * exclusive offset `lastContainedOffset + 1` (KAFKA-14618).
 */
export class MetadataProvenance {
  static readonly EMPTY = new MetadataProvenance(-1, -1, -1, false);

  readonly lastContainedOffset: number;
  readonly lastContainedEpoch: number;
  readonly lastContainedLogTimeMs: number;
  /** The image ends at a batch boundary, so a snapshot at it is batch aligned (KAFKA-14619). */
  readonly isOffsetBatchAligned: boolean;

  constructor(
    lastContainedOffset: number,
    lastContainedEpoch: number,
    lastContainedLogTimeMs: number,
    isOffsetBatchAligned: boolean,
  ) {
    this.lastContainedOffset = lastContainedOffset;
    this.lastContainedEpoch = lastContainedEpoch;
    this.lastContainedLogTimeMs = lastContainedLogTimeMs;
    this.isOffsetBatchAligned = isOffsetBatchAligned;
  }

  /** The id of a snapshot of an image with this provenance: an exclusive end offset. */
  snapshotId(): OffsetAndEpoch {
    return { offset: this.lastContainedOffset + 1, epoch: this.lastContainedEpoch };
  }

  /** Whether both have the same offset, epoch, log time and batch alignment. */
  equals(other: MetadataProvenance): boolean {
    return (
      this.lastContainedOffset === other.lastContainedOffset &&
      this.lastContainedEpoch === other.lastContainedEpoch &&
      this.lastContainedLogTimeMs === other.lastContainedLogTimeMs &&
      this.isOffsetBatchAligned === other.isOffsetBatchAligned
    );
  }
}
