import { type Batch, CorruptRecordError } from '@kraft/records';
import type { OffsetAndEpoch } from '../ports/raft-log.js';
import type { BatchReader, LeaderAndEpoch, Listener, SnapshotReader } from '../raft-client.js';
import type {
  DecodedBatch,
  DecodedBatchReader,
  DecodedSnapshotReader,
  RaftNodeListener,
} from './raft-node-listener.js';
import type { RecordSerde } from './record-serde.js';

/**
 * The raw `Listener` the client calls, in front of a `RaftNodeListener<T>`: every reader is passed
 * on wrapped, so the listener sees values decoded by the node's serde. It decodes only what the
 * client's readers yield, batch by batch as the listener reads, and adds nothing of its own, so
 * the client's guarantee carries over unchanged: no batch at or above the high watermark.
 */
export class DecodingListener<T> implements Listener {
  private readonly serde: RecordSerde<T>;
  private readonly listener: RaftNodeListener<T>;

  constructor(serde: RecordSerde<T>, listener: RaftNodeListener<T>) {
    this.serde = serde;
    this.listener = listener;
  }

  handleCommit(reader: BatchReader): void {
    this.listener.handleCommit(new DecodingBatchReader(this.serde, reader));
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    this.listener.handleLoadSnapshot(new DecodingSnapshotReader(this.serde, reader));
  }

  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.listener.handleLeaderChange?.(leader);
  }

  beginShutdown(): void {
    this.listener.beginShutdown?.();
  }
}

/**
 * `batch` with its values decoded by `serde` on the first read of `records`, so a listener that
 * only looks at offsets and epochs never pays for decoding. The batch owns its bytes (the records
 * iterator copies each one out of its reused buffer), so decoding later is safe.
 */
function decodeBatch<T>(serde: RecordSerde<T>, batch: Batch): DecodedBatch<T> {
  const { baseOffset, lastOffset, epoch, appendTimestamp, sizeInBytes, isControl, controlRecords } = batch;
  let values: readonly T[] | undefined;
  return {
    baseOffset,
    lastOffset,
    epoch,
    appendTimestamp,
    sizeInBytes,
    isControl,
    controlRecords,
    get records(): readonly T[] {
      values ??= isControl ? [] : decodeValues(serde, batch);
      return values;
    },
  };
}

/**
 * Raft writes every value as one record with a value and no gaps (a proposal's and a snapshot's
 * records alike), so a data record without a value, or an offset out of sequence, means the bytes
 * are not what raft wrote: refused as corrupt rather than skipped, which would also break the
 * `baseOffset + i` rule for the values after it.
 */
function decodeValues<T>(serde: RecordSerde<T>, batch: Batch): T[] {
  const { records } = batch;
  const values = new Array<T>(records.length);
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index] as (typeof records)[number];
    if (record.value === null) {
      throw new CorruptRecordError('a data record without a value', batch.baseOffset, batch.position);
    }
    if (record.offset !== batch.baseOffset + index) {
      throw new CorruptRecordError(
        `record ${index} has offset ${record.offset}, not ${batch.baseOffset + index}`,
        batch.baseOffset,
        batch.position,
      );
    }
    values[index] = serde.read(record.value);
  }
  return values;
}

/** What both decoding readers share: the raw reader's batches, decoded, and its `close`. */
abstract class DecodingReader<T, Raw extends Iterable<Batch> & { close(): void }>
  implements Iterable<DecodedBatch<T>>
{
  protected readonly raw: Raw;
  private readonly serde: RecordSerde<T>;

  constructor(serde: RecordSerde<T>, raw: Raw) {
    this.serde = serde;
    this.raw = raw;
  }

  *[Symbol.iterator](): Iterator<DecodedBatch<T>> {
    for (const batch of this.raw) yield decodeBatch(this.serde, batch);
  }

  close(): void {
    this.raw.close();
  }
}

class DecodingBatchReader<T> extends DecodingReader<T, BatchReader> implements DecodedBatchReader<T> {
  readonly baseOffset: number;

  constructor(serde: RecordSerde<T>, reader: BatchReader) {
    super(serde, reader);
    this.baseOffset = reader.baseOffset;
  }

  lastOffset(): number | undefined {
    return this.raw.lastOffset();
  }
}

class DecodingSnapshotReader<T>
  extends DecodingReader<T, SnapshotReader>
  implements DecodedSnapshotReader<T>
{
  readonly snapshotId: OffsetAndEpoch;
  readonly lastContainedLogOffset: number;
  readonly lastContainedLogEpoch: number;

  constructor(serde: RecordSerde<T>, reader: SnapshotReader) {
    super(serde, reader);
    this.snapshotId = reader.snapshotId;
    this.lastContainedLogOffset = reader.lastContainedLogOffset;
    this.lastContainedLogEpoch = reader.lastContainedLogEpoch;
  }

  lastContainedLogTimestamp(): number {
    return this.raw.lastContainedLogTimestamp();
  }
}
