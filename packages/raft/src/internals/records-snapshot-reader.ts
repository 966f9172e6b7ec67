import { invariant } from '@kraft/protocol';
import { type Batch, ControlRecordType, RecordsIterator } from '@kraft/records';
import type { OffsetAndEpoch, RawSnapshotReader } from '../ports/raft-log.js';
import type { SnapshotReader } from '../raft-client.js';

/**
 * A frozen snapshot for `Listener.handleLoadSnapshot`. Yields every batch, control batches
 * included (the SnapshotHeader first, the SnapshotFooter last); records inside a snapshot start
 * at offset 0.
 */
export class RecordsSnapshotReader implements SnapshotReader {
  readonly snapshotId: OffsetAndEpoch;
  readonly lastContainedLogOffset: number;
  readonly lastContainedLogEpoch: number;
  private readonly raw: RawSnapshotReader;
  private readonly iteratorOptions: { maxBatchSizeBytes?: number };
  private timestamp: number | undefined;
  private closed = false;

  /** `readBufferBytes`: the iterator's refill buffer for a file snapshot (default 8 MiB). */
  constructor(raw: RawSnapshotReader, readBufferBytes?: number) {
    this.raw = raw;
    this.iteratorOptions = readBufferBytes === undefined ? {} : { maxBatchSizeBytes: readBufferBytes };
    this.snapshotId = raw.snapshotId;
    this.lastContainedLogOffset = raw.snapshotId.offset - 1;
    this.lastContainedLogEpoch = raw.snapshotId.epoch;
  }

  lastContainedLogTimestamp(): number {
    if (this.timestamp === undefined) {
      const first = new RecordsIterator(this.raw.records(), this.iteratorOptions).next();
      const header = first.done === true ? undefined : first.value.controlRecords[0];
      invariant(
        header?.type === ControlRecordType.SNAPSHOT_HEADER,
        () =>
          `snapshot ${this.snapshotId.offset}-${this.snapshotId.epoch} does not start with a SnapshotHeader`,
      );
      this.timestamp = Number(header.message.lastContainedLogTimestamp);
    }
    return this.timestamp;
  }

  *[Symbol.iterator](): Iterator<Batch> {
    invariant(
      !this.closed,
      () => `snapshot reader ${this.snapshotId.offset}-${this.snapshotId.epoch} is closed`,
    );
    yield* new RecordsIterator(this.raw.records(), this.iteratorOptions);
  }

  /** The raw reader belongs to the log (shared and cached there), so closing it is the log's job. */
  close(): void {
    this.closed = true;
  }
}
