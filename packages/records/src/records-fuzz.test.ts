import { KRaftError, Uuid } from '@kraft/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeBatch } from '../test/helpers/batches.js';
import { fixCrc } from '../test/helpers/corrupt.js';
import { hex, VECTOR_A_HEX, VECTOR_C_FOOTER_HEX, VECTOR_C_HEADER_HEX } from '../test/helpers/vectors.js';
import type { CompressionType } from './compression/compression-type.js';
import { initializeZstd } from './compression/zstd-codec.js';
import { buildControlBatch } from './control-batch-builders.js';
import { ControlRecordType } from './control-records.js';
import { FileRecords } from './file-records.js';
import { MemoryFileSystem } from './fs/memory-file-system.js';
import { MemoryRecords } from './memory-records.js';
import { RecordsIterator } from './records-iterator.js';

/** Seeded so a failure replays: KRAFT_SEED=<n> picks another stream, KRAFT_FUZZ_RUNS another count. */
const { KRAFT_SEED, KRAFT_FUZZ_RUNS } = process.env;
const SEED = Number(KRAFT_SEED ?? 20841);
const RUNS = Number(KRAFT_FUZZ_RUNS ?? 12_000);
const TYPED_CODES = new Set(['CORRUPT_RECORD', 'RECORD_BATCH_TOO_LARGE', 'UNKNOWN_CONTROL_TYPE']);

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function corpus(): Buffer[] {
  const compressions: CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
  const batches = compressions.flatMap((compression) => [
    makeBatch({ baseOffset: 100, recordCount: 5, valueSizeBytes: 30, compression }),
    makeBatch({ baseOffset: 7, recordCount: 1, valueSizeBytes: 0, compression }),
  ]);
  const control = buildControlBatch({ baseOffset: 9, partitionLeaderEpoch: 4, timestamp: 1 }, [
    {
      type: ControlRecordType.LEADER_CHANGE,
      message: {
        version: 0,
        leaderId: 1,
        voters: [{ voterId: 1, voterDirectoryId: Uuid.ZERO }],
        grantingVoters: [],
      },
    },
    { type: ControlRecordType.KRAFT_VERSION, message: { version: 0, kRaftVersion: 1 } },
    {
      type: ControlRecordType.KRAFT_VOTERS,
      message: {
        version: 0,
        voters: [
          {
            voterId: 1,
            voterDirectoryId: Uuid.ZERO,
            endpoints: [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }],
            kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
          },
        ],
      },
    },
  ]);
  return [
    ...batches.map((batch) => batch.buffer()),
    control.buffer(),
    hex(VECTOR_A_HEX),
    hex(VECTOR_C_HEADER_HEX),
    hex(VECTOR_C_FOOTER_HEX),
  ];
}

function mutate(original: Buffer, random: () => number): Buffer {
  let bytes = Buffer.from(original);
  const mutations = 1 + Math.floor(random() * 4);
  for (let count = 0; count < mutations; count += 1) {
    const choice = random();
    const position = Math.floor(random() * bytes.length);
    if (choice < 0.45) bytes[position] = (bytes[position] as number) ^ (1 << Math.floor(random() * 8));
    else if (choice < 0.7) bytes[position] = Math.floor(random() * 256);
    else if (choice < 0.8) bytes = bytes.subarray(0, position);
    else if (choice < 0.88)
      bytes = Buffer.concat([
        bytes,
        Buffer.from(Array.from({ length: 1 + Math.floor(random() * 40) }, () => Math.floor(random() * 256))),
      ]);
    else if (choice < 0.94 && bytes.length >= 61)
      bytes.writeInt32BE(Math.floor(random() * 2 ** 31) * (random() < 0.5 ? -1 : 1), 57);
    else if (bytes.length >= 12) bytes.writeInt32BE(Math.floor(random() * 300) - 10, 8);
  }
  // Half the time the CRC is made right again, so the decoder itself meets the damage.
  if (random() < 0.5 && bytes.length >= 61) {
    const length = bytes.readInt32BE(8);
    if (length >= 49 && length + 12 <= bytes.length) fixCrc(bytes);
  }
  return bytes;
}

function drain(records: MemoryRecords | FileRecords, random: () => number): void {
  const options = { maxBatchSizeBytes: 17 + Math.floor(random() * 400), maxDecompressedSizeBytes: 1 << 20 };
  for (const batch of new RecordsIterator(records, options)) {
    for (const record of batch.records) void record.value?.length;
  }
}

describe('RecordsIterator fuzz: mutated batches give only typed errors', () => {
  beforeAll(async () => {
    await initializeZstd();
  });

  it(`decodes ${RUNS} mutated batches (seed ${SEED}) without an untyped error`, () => {
    expect(RUNS).toBeGreaterThanOrEqual(10_000);
    const random = mulberry32(SEED);
    const inputs = corpus();
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/fuzz');
    const outcomes = { decoded: 0, typed: 0 };
    for (let run = 0; run < RUNS; run += 1) {
      const bytes = mutate(inputs[Math.floor(random() * inputs.length)] as Buffer, random);
      let records: MemoryRecords | FileRecords = MemoryRecords.readableRecords(bytes);
      if (run % 10 === 0) {
        const file = FileRecords.open(`/fuzz/${run}.log`, { fileSystem });
        file.append(MemoryRecords.readableRecords(bytes));
        records = file;
      }
      try {
        drain(records, random);
        outcomes.decoded += 1;
      } catch (error) {
        if (!KRaftError.isInstance(error) || !TYPED_CODES.has(error.code)) {
          throw new Error(`run ${run} (seed ${SEED}) raised an untyped error for ${bytes.toString('hex')}`, {
            cause: error,
          });
        }
        outcomes.typed += 1;
      } finally {
        if (records instanceof FileRecords) records.deleteIfExists();
      }
    }
    expect(outcomes.decoded + outcomes.typed).toBe(RUNS);
    expect(outcomes.typed).toBeGreaterThan(RUNS / 4);
  });
});
