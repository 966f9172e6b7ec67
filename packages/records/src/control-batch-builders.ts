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

/**
 * Where a control batch goes in the log: the offset of its first record and the epoch of the
 * leader writing it. Every builder below takes one.
 */
export interface ControlBatchOptions {
  /** Offset of the batch's first record (the log end offset where it will be appended). */
  readonly baseOffset: number;
  /** The writing leader's epoch, stored in the batch header (Kafka's `partitionLeaderEpoch`). */
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

/**
 * The control batch a new leader appends first in its epoch: one `LeaderChangeMessage` record
 * (Kafka's `ControlRecordType.LEADER_CHANGE`). Committing it is how the leader learns that the
 * entries of earlier epochs are committed too.
 *
 * @example
 * ```ts
 * import { Uuid } from '@kraft/protocol';
 *
 * const self = { voterId: 1, voterDirectoryId: Uuid.ZERO };
 * const batch = buildLeaderChangeBatch(
 *   { baseOffset: 0, partitionLeaderEpoch: 1, timestamp: Date.now() },
 *   { version: 0, leaderId: 1, voters: [self], grantingVoters: [self] },
 * );
 * batch.firstBatch()?.isControl; // true
 * ```
 */
export function buildLeaderChangeBatch(
  options: ControlBatchOptions,
  message: LeaderChangeMessageData,
): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.LEADER_CHANGE, message }]);
}

/**
 * The control batch that opens every snapshot: one `SnapshotHeaderRecord` carrying the snapshot
 * format version and the time of the last record it contains.
 */
export function buildSnapshotHeaderBatch(
  options: ControlBatchOptions,
  message: SnapshotHeaderRecordData,
): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.SNAPSHOT_HEADER, message }]);
}

/**
 * The control batch that closes every snapshot: one `SnapshotFooterRecord`. A snapshot without
 * it was not written to the end.
 */
export function buildSnapshotFooterBatch(
  options: ControlBatchOptions,
  message: SnapshotFooterRecordData,
): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.SNAPSHOT_FOOTER, message }]);
}

/**
 * A control batch holding one `KRaftVersionRecord`: the `kraft.version` feature level in force
 * from this offset on (0 for a static quorum, 1 once voters are stored in the log, KIP-853).
 */
export function buildKRaftVersionBatch(
  options: ControlBatchOptions,
  message: KRaftVersionRecordData,
): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.KRAFT_VERSION, message }]);
}

/**
 * A control batch holding one `VotersRecord`: the full voter set (ids, directory ids, endpoints,
 * supported kraft.version range) in force from this offset on (KIP-853 dynamic quorums).
 */
export function buildVotersBatch(options: ControlBatchOptions, message: VotersRecordData): MemoryRecords {
  return buildControlBatch(options, [{ type: ControlRecordType.KRAFT_VOTERS, message }]);
}
