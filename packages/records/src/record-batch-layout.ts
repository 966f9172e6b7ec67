/**
 * Byte layout of a record batch v2 (magic 2), DefaultRecordBatch in Kafka. Offsets are from the
 * start of the batch. See kraft-formats.md §3.
 */
export const BASE_OFFSET_OFFSET = 0;
export const LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
/** The CRC covers everything from the attributes to the end of the batch. */
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
export const RECORDS_OFFSET = 61;

/** baseOffset + batchLength: the bytes in front of what `batchLength` counts. */
export const LOG_OVERHEAD = 12;
/** The whole fixed header; a batch is never shorter. */
export const RECORD_BATCH_OVERHEAD = RECORDS_OFFSET;
/** Enough bytes to read the batch length and the magic byte (Kafka's HEADER_SIZE_UP_TO_MAGIC). */
export const HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1;
export const CURRENT_MAGIC = 2;

export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

/** producerId, producerEpoch and baseSequence when there is no idempotent producer (always in KRaft). */
export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;
export const NO_TIMESTAMP = -1;

/** KRaft's MAX_BATCH_SIZE_BYTES: also the raft fetch size and the iterator's default buffer. */
export const DEFAULT_MAX_BATCH_SIZE_BYTES = 8 * 1024 * 1024;

/** Largest file or slice size: positions are int32 in Kafka's segment files and indexes. */
export const MAX_RECORDS_SIZE_BYTES = 0x7fffffff;
