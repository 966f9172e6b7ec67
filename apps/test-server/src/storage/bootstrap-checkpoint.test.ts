import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KRaftVersionRecord,
  SnapshotFooterRecord,
  SnapshotHeaderRecord,
  Uuid,
  VotersRecord,
} from '@kraft/protocol';
import {
  buildControlBatch,
  ControlRecordType,
  crc32c,
  decodeControlRecord,
  MemoryRecords,
  NodeFileSystem,
} from '@kraft/records';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BOOTSTRAP_CHECKPOINT_FILE,
  bootstrapCheckpointBytes,
  javaHostString,
  readBootstrapCheckpoint,
  votersRecordOf,
  writeBootstrapCheckpoint,
} from './bootstrap-checkpoint.js';
import { BootstrapCheckpointError } from './bootstrap-checkpoint-error.js';
import { parseDynamicVoters } from './dynamic-voters.js';

const TIMESTAMP_MS = 1_700_000_000_000; // 0x0000018bcfe56800
const VOTERS = parseDynamicVoters('1@localhost:9093:b8tRS7h4TJ2Vt43Dp85v2A');
const CONTENTS = { voters: VOTERS, listenerName: 'CONTROLLER', timestampMs: TIMESTAMP_MS };

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/**
 * Value bytes derived by hand from Kafka's schemas (`VotersRecord.json` & co., all flexible at
 * v0, so each struct ends with an empty tagged-field section `00`) the way Kafka's generated
 * `write` lays them out; nothing here comes from our codecs.
 */
const VOTERS_VALUE = hex(
  `
  0000                              Version 0
  02                                Voters: compact array of 1
  00000001                          VoterId 1
  6fcb514bb8784c9d95b78dc3a7ce6fd8  VoterDirectoryId b8tRS7h4TJ2Vt43Dp85v2A
  02                                Endpoints: compact array of 1
  0b 434f4e54524f4c4c4552           Name "CONTROLLER"
  0a 6c6f63616c686f7374             Host "localhost"
  2385                              Port 9093 (uint16)
  00                                Endpoint tagged fields
  0000 0001                         KRaftVersionFeature min 0, max 1
  00                                KRaftVersionFeature tagged fields
  00                                Voter tagged fields
  00                                VotersRecord tagged fields
`.replace(/[A-Z][^\n]*/g, ''),
);
const HEADER_VALUE = hex('0000 0000018bcfe56800 00'); // Version 0, LastContainedLogTimestamp, tags
const KRAFT_VERSION_VALUE = hex('0000 0001 00'); // Version 0, KRaftVersion 1, tags
const FOOTER_VALUE = hex('0000 00'); // Version 0, tags

/** Varints of the record v2 layout (zigzag for the signed ones). */
function zigzagVarint(value: number): Buffer {
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  const bytes: number[] = [];
  while (zigzag >= 0x80) {
    bytes.push((zigzag & 0x7f) | 0x80);
    zigzag = Math.floor(zigzag / 128);
  }
  bytes.push(zigzag);
  return Buffer.from(bytes);
}

/** One control record: attributes, timestamp delta 0, offset delta, key (int16 version 0, int16 type), value, no headers. */
function controlRecord(offsetDelta: number, type: number, value: Buffer): Buffer {
  const key = Buffer.from([0, 0, 0, type]);
  const body = Buffer.concat([
    hex('00 00'),
    zigzagVarint(offsetDelta),
    zigzagVarint(key.length),
    key,
    zigzagVarint(value.length),
    value,
    hex('00'),
  ]);
  return Buffer.concat([zigzagVarint(body.length), body]);
}

/** A v2 control batch (DefaultRecordBatch): epoch 0, CreateTime, no producer, CRC-32C over attributes..end. */
function controlBatch(baseOffset: number, records: readonly Buffer[]): Buffer {
  const recordBytes = Buffer.concat(records);
  const batch = Buffer.alloc(61 + recordBytes.length);
  batch.writeBigInt64BE(BigInt(baseOffset), 0);
  batch.writeInt32BE(batch.length - 12, 8); // batchLength: everything after the length field
  batch.writeInt32BE(0, 12); // partitionLeaderEpoch: the snapshot's epoch
  batch.writeInt8(2, 16); // magic
  batch.writeInt16BE(0x20, 21); // attributes: control
  batch.writeInt32BE(records.length - 1, 23); // lastOffsetDelta
  batch.writeBigInt64BE(BigInt(TIMESTAMP_MS), 27); // baseTimestamp
  batch.writeBigInt64BE(BigInt(TIMESTAMP_MS), 35); // maxTimestamp
  batch.writeBigInt64BE(-1n, 43); // producerId
  batch.writeInt16BE(-1, 51); // producerEpoch
  batch.writeInt32BE(-1, 53); // baseSequence
  batch.writeInt32BE(records.length, 57); // record count
  recordBytes.copy(batch, 61);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

const EXPECTED_FILE = Buffer.concat([
  controlBatch(0, [
    controlRecord(0, ControlRecordType.SNAPSHOT_HEADER, HEADER_VALUE),
    controlRecord(1, ControlRecordType.KRAFT_VERSION, KRAFT_VERSION_VALUE),
    controlRecord(2, ControlRecordType.KRAFT_VOTERS, VOTERS_VALUE),
  ]),
  controlBatch(3, [controlRecord(0, ControlRecordType.SNAPSHOT_FOOTER, FOOTER_VALUE)]),
]);

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'kraft-bootstrap-checkpoint-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('the bootstrap checkpoint bytes', () => {
  it("are Kafka's VotersRecord value for the voters, byte for byte", () => {
    const record = votersRecordOf(VOTERS, 'CONTROLLER');
    expect(VotersRecord.write(record, 0).toString('hex')).toBe(VOTERS_VALUE.toString('hex'));
    expect(VotersRecord.read(VOTERS_VALUE, 0)).toEqual(record);
  });

  it('are two control batches: header, KRaftVersion and Voters at offsets 0-2, the footer alone at 3', () => {
    const bytes = bootstrapCheckpointBytes(CONTENTS);
    expect(bytes.toString('hex')).toBe(EXPECTED_FILE.toString('hex'));
    expect(bytes.length).toBe(166 + 75);
  });

  it('decode back with the records and protocol readers: framing, CRC, types, versions, values', () => {
    const records = MemoryRecords.readableRecords(bootstrapCheckpointBytes(CONTENTS));
    records.validate();
    const batches = [...records.batches()];
    expect(batches.map((batch) => [batch.baseOffset, batch.lastOffset, batch.recordCount])).toEqual([
      [0, 2, 3],
      [3, 3, 1],
    ]);
    for (const batch of batches) {
      expect(batch).toMatchObject({
        isControl: true,
        isTransactional: false,
        partitionLeaderEpoch: 0,
        magic: 2,
        compressionType: 'none',
        timestampType: 'CreateTime',
        producerId: -1n,
        producerEpoch: -1,
        baseSequence: -1,
        maxTimestamp: TIMESTAMP_MS,
      });
      expect(batch.checksum).toBe(crc32c(batch.bytes.subarray(21)));
    }
    const decoded = batches.flatMap((batch) =>
      batch.records().map((record) => ({ record, control: decodeControlRecord(record, batch.position) })),
    );
    expect(
      decoded.map(({ record }) => [record.offset, record.timestamp, record.key?.toString('hex')]),
    ).toEqual([
      [0, TIMESTAMP_MS, '00000003'],
      [1, TIMESTAMP_MS, '00000005'],
      [2, TIMESTAMP_MS, '00000006'],
      [3, TIMESTAMP_MS, '00000004'],
    ]);
    const [header, kraftVersion, voters, footer] = decoded.map(({ control }) => control);
    expect(header).toMatchObject({
      type: ControlRecordType.SNAPSHOT_HEADER,
      message: { version: 0, lastContainedLogTimestamp: BigInt(TIMESTAMP_MS) },
    });
    expect(kraftVersion).toMatchObject({
      type: ControlRecordType.KRAFT_VERSION,
      message: { version: 0, kRaftVersion: 1 },
    });
    expect(voters?.type).toBe(ControlRecordType.KRAFT_VOTERS);
    expect(voters?.message).toEqual(VotersRecord.read(VOTERS_VALUE, 0));
    expect(footer).toMatchObject({ type: ControlRecordType.SNAPSHOT_FOOTER, message: { version: 0 } });
    // Each value is exactly its schema's bytes (the record values are views of the file).
    const values = decoded.map(({ record }) => record.value?.toString('hex'));
    expect(values).toEqual(
      [HEADER_VALUE, KRAFT_VERSION_VALUE, VOTERS_VALUE, FOOTER_VALUE].map((v) => v.toString('hex')),
    );
    expect(SnapshotHeaderRecord.read(HEADER_VALUE, 0).lastContainedLogTimestamp).toBe(BigInt(TIMESTAMP_MS));
    expect(KRaftVersionRecord.read(KRAFT_VERSION_VALUE, 0).kRaftVersion).toBe(1);
    expect(SnapshotFooterRecord.read(FOOTER_VALUE, 0).version).toBe(0);
  });

  it('write every voter, sorted by id, with the endpoint under the listener name and kraft.version 0-1', () => {
    const three = parseDynamicVoters(
      '3@c:9095:4-e97nI7eHPYKfEDtW8rtQ,1@a:9093:b8tRS7h4TJ2Vt43Dp85v2A,2@[::1]:9094:Nkij_D9XRiYKNb41SiJo7Q',
    );
    expect(votersRecordOf(three, 'CONTROLLER').voters).toEqual([
      expect.objectContaining({ voterId: 1, endpoints: [{ name: 'CONTROLLER', host: 'a', port: 9093 }] }),
      expect.objectContaining({
        voterId: 2,
        voterDirectoryId: Uuid.fromString('Nkij_D9XRiYKNb41SiJo7Q'),
        endpoints: [{ name: 'CONTROLLER', host: '0:0:0:0:0:0:0:1', port: 9094 }],
        kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
      }),
      expect.objectContaining({ voterId: 3 }),
    ]);
  });
});

describe('javaHostString', () => {
  it.each([
    ['localhost', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '0:0:0:0:0:0:0:1'],
    ['::', '0:0:0:0:0:0:0:0'],
    ['2001:DB8::8:800:200C:417A', '2001:db8:0:0:8:800:200c:417a'],
    ['2001:db8:0:0:0:0:2:1', '2001:db8:0:0:0:0:2:1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['::1.2.3.4', '0:0:0:0:0:0:102:304'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
  ])("writes %s as Java's InetSocketAddress.getHostString() gives it: %s", (host, expected) => {
    expect(javaHostString(host)).toBe(expected);
  });
});

describe('writeBootstrapCheckpoint and readBootstrapCheckpoint', () => {
  const fileSystem = new NodeFileSystem();

  it('write the file through a .part file renamed into place, and read back what it says', () => {
    const partition = join(directory, 'logs', '__raft_performance_test-0');
    const path = writeBootstrapCheckpoint(fileSystem, partition, CONTENTS);
    expect(path).toBe(join(partition, BOOTSTRAP_CHECKPOINT_FILE));
    expect(readdirSync(partition)).toEqual(['00000000000000000000-0000000000.checkpoint']);
    expect(readFileSync(path).toString('hex')).toBe(EXPECTED_FILE.toString('hex'));
    const checkpoint = readBootstrapCheckpoint(fileSystem, path);
    expect(checkpoint).toMatchObject({ path, kraftVersion: 1, lastContainedLogTimestampMs: TIMESTAMP_MS });
    expect(checkpoint?.voters).toEqual(votersRecordOf(VOTERS, 'CONTROLLER').voters);
  });

  it('read undefined when there is no checkpoint', () => {
    expect(readBootstrapCheckpoint(fileSystem, join(directory, BOOTSTRAP_CHECKPOINT_FILE))).toBeUndefined();
  });

  it('read a snapshot without KRaftVersion or Voters records as kraft.version 0 with no voters', () => {
    const path = join(directory, BOOTSTRAP_CHECKPOINT_FILE);
    writeFileSync(
      path,
      Buffer.concat([
        controlBatch(0, [controlRecord(0, ControlRecordType.SNAPSHOT_HEADER, HEADER_VALUE)]),
        controlBatch(1, [controlRecord(0, ControlRecordType.SNAPSHOT_FOOTER, FOOTER_VALUE)]),
      ]),
    );
    expect(readBootstrapCheckpoint(fileSystem, path)).toMatchObject({ kraftVersion: 0, voters: undefined });
  });

  const header = controlRecord(0, ControlRecordType.SNAPSHOT_HEADER, HEADER_VALUE);
  const footerBatch = (offset: number) =>
    controlBatch(offset, [controlRecord(0, ControlRecordType.SNAPSHOT_FOOTER, FOOTER_VALUE)]);
  it.each([
    [
      'a batch whose CRC does not match',
      () => {
        const bytes = Buffer.from(EXPECTED_FILE);
        bytes[100] = (bytes[100] as number) ^ 0x01;
        return bytes;
      },
      /CRC mismatch/,
    ],
    [
      'bytes after the last batch',
      () => Buffer.concat([EXPECTED_FILE, hex('00')]),
      /1 trailing bytes do not form a batch/,
    ],
    ['a file cut inside a batch', () => EXPECTED_FILE.subarray(0, 200), /trailing bytes do not form a batch/],
    ['no footer', () => EXPECTED_FILE.subarray(0, 166), /ends without a SnapshotFooterRecord/],
    ['no record at all', () => Buffer.alloc(0), /holds no record/],
    ['a footer first', () => footerBatch(0), /the first record \(offset 0\) is not a SnapshotHeaderRecord/],
    [
      'a batch after the footer',
      () => Buffer.concat([controlBatch(0, [header]), footerBatch(1), footerBatch(2)]),
      /follows the SnapshotFooterRecord/,
    ],
    [
      'a gap in the offsets',
      () => Buffer.concat([controlBatch(0, [header]), footerBatch(5)]),
      /starts at offset 5, expected 1/,
    ],
    [
      'two headers',
      () => Buffer.concat([controlBatch(0, [header]), controlBatch(1, [header]), footerBatch(2)]),
      /a second SnapshotHeaderRecord/,
    ],
    [
      'a LeaderChange record',
      () => {
        const leaderChange = buildControlBatch(
          { baseOffset: 1, partitionLeaderEpoch: 0, timestamp: TIMESTAMP_MS },
          [
            {
              type: ControlRecordType.LEADER_CHANGE,
              message: { version: 0, leaderId: 1, voters: [], grantingVoters: [] },
            },
          ],
        ).buffer();
        return Buffer.concat([controlBatch(0, [header]), leaderChange, footerBatch(2)]);
      },
      /a LeaderChangeMessage control record at offset 1/,
    ],
  ])('refuse %s with a BootstrapCheckpointError naming the file', (_what, bytes, reason) => {
    const path = join(directory, BOOTSTRAP_CHECKPOINT_FILE);
    writeFileSync(path, bytes());
    let caught: unknown;
    try {
      readBootstrapCheckpoint(fileSystem, path);
    } catch (error) {
      caught = error;
    }
    expect(BootstrapCheckpointError.isBootstrapCheckpointError(caught)).toBe(true);
    expect((caught as BootstrapCheckpointError).path).toBe(path);
    expect((caught as Error).message).toMatch(reason);
    expect((caught as Error).message.startsWith(`${path}: `)).toBe(true);
  });

  it('refuse a path that is a directory, naming it', () => {
    const path = join(directory, BOOTSTRAP_CHECKPOINT_FILE);
    mkdirSync(path);
    expect(() => readBootstrapCheckpoint(fileSystem, path)).toThrow(BootstrapCheckpointError);
  });
});
