import type {
  KRaftVersionRecordData,
  LeaderChangeMessageData,
  SnapshotFooterRecordData,
  SnapshotHeaderRecordData,
  VotersRecordData,
} from '@kraft/protocol';
import {
  type ControlRecordMessage,
  ControlRecordType,
  encodeControlRecordKey,
  encodeControlRecordValue,
} from './control-records.js';
import type { MemoryRecords } from './memory-records.js';
import { MemoryRecordsBuilder } from './memory-records-builder.js';

export interface ControlBatchOptions {
  readonly baseOffset: number;
  readonly partitionLeaderEpoch: number;
  /** Every record's timestamp (Kafka uses the current time for control batches). */
  readonly timestamp: number;
}

/**
 * One control batch (attribute bit 5) holding `records` in order, as KRaft writes them: a new
 * leader's LeaderChange (+ KRaftVersion + Voters), a snapshot's header (+ KRaftVersion + Voters)
 * or footer. CreateTime, no compression, producer fields -1.
 */
export function buildControlBatch(
  options: ControlBatchOptions,
  records: readonly ControlRecordMessage[],
): MemoryRecords {
  const builder = new MemoryRecordsBuilder({
    baseOffset: options.baseOffset,
    partitionLeaderEpoch: options.partitionLeaderEpoch,
    isControl: true,
  });
  for (const record of records) {
    builder.append({
      timestamp: options.timestamp,
      key: encodeControlRecordKey(record.type),
      value: encodeControlRecordValue(record),
    });
  }
  return builder.build();
}

export function buildLeaderChangeBatch(
  options: ControlBatchOptions,
  message: LeaderChangeMessageData,
): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.LEADER_CHANGE, message }]);
}

export function buildSnapshotHeaderBatch(
  options: ControlBatchOptions,
  message: SnapshotHeaderRecordData,
): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.SNAPSHOT_HEADER, message }]);
}

export function buildSnapshotFooterBatch(
  options: ControlBatchOptions,
  message: SnapshotFooterRecordData,
): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.SNAPSHOT_FOOTER, message }]);
}

export function buildKRaftVersionBatch(
  options: ControlBatchOptions,
  message: KRaftVersionRecordData,
): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.KRAFT_VERSION, message }]);
}

export function buildVotersBatch(options: ControlBatchOptions, message: VotersRecordData): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.KRAFT_VOTERS, message }]);
}
