import type { ControlRecord } from './control-records.js';
import type { KafkaRecord } from './kafka-record.js';

/**
 * One batch as `RecordsIterator` yields it (Kafka's raft `Batch`): a data batch carries its
 * records; a control batch carries its decoded control records and no data records.
 */
export interface Batch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** The partition leader epoch: in KRaft the epoch of the leader that wrote the batch. */
  readonly epoch: number;
  /** The batch's max timestamp, as Kafka's Batch.appendTimestamp. */
  readonly appendTimestamp: number;
  readonly sizeInBytes: number;
  readonly isControl: boolean;
  /** Byte position of the batch within the records it was read from. */
  readonly position: number;
  readonly records: readonly KafkaRecord[];
  readonly controlRecords: readonly ControlRecord[];
}
