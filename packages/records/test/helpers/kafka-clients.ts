import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 has no exports map and no types for its deep paths; these are the record-batch
 * pieces toolchain.md §2.1 lists, loaded through createRequire.
 */
const require = createRequire(import.meta.url);

interface KafkajsLong {
  toString(): string;
}
interface KafkajsEncoder {
  buffer: Buffer;
}
export interface KafkajsRecordInput {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
}
export interface KafkajsBatchInput {
  compression: number;
  firstOffset: KafkajsLong;
  firstTimestamp: number;
  maxTimestamp: number;
  partitionLeaderEpoch: number;
  lastOffsetDelta: number;
  producerId: KafkajsLong;
  producerEpoch: number;
  firstSequence: number;
  records: unknown[];
}
export interface KafkajsDecodedRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[]>;
}
export interface KafkajsDecodedBatch {
  firstOffset: string;
  partitionLeaderEpoch: number;
  isControlBatch: boolean;
  lastOffsetDelta: number;
  maxTimestamp: string;
  records: KafkajsDecodedRecord[];
}

const recordBatchModule = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (input: KafkajsBatchInput) => Promise<KafkajsEncoder>;
};
const recordModule = require('kafkajs/src/protocol/recordBatch/record/v0') as (
  input: KafkajsRecordInput,
) => unknown;
const decodeBatchModule = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (
  decoder: unknown,
) => Promise<KafkajsDecodedBatch>;
const DecoderClass = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;
const longModule = require('kafkajs/src/utils/long') as { fromValue(value: number | string): KafkajsLong };

/** kafkajs compression ids: only gzip has a built-in codec. */
export const KAFKAJS_COMPRESSION = { none: 0, gzip: 1 } as const;

export const kafkajs = {
  encodeBatch: async (
    input: Omit<KafkajsBatchInput, 'firstOffset' | 'producerId'> & { firstOffset: number },
  ) => {
    const encoder = await recordBatchModule.RecordBatch({
      ...input,
      firstOffset: longModule.fromValue(input.firstOffset),
      producerId: longModule.fromValue(-1),
    });
    return encoder.buffer;
  },
  record: (input: KafkajsRecordInput) => recordModule(input),
  decodeBatch: (buffer: Buffer) => decodeBatchModule(new DecoderClass(buffer)),
};
