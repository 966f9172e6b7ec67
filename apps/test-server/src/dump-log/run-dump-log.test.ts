import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MetadataRecordSerde } from '@kraft/metadata';
import { crc32c } from '@kraft/records';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_RECORDS,
  type MetadataLogFixture,
  writeMetadataLogFixture,
} from '../../test/support/metadata-log-fixture.js';
import { BAD_FILE_EXIT_CODE, runDumpLog } from './run-dump-log.js';

interface DumpRun {
  readonly code: number;
  readonly stdout: string[];
  readonly stderr: string;
}

function dump(...argv: string[]): DumpRun {
  const stdout: string[] = [];
  let stderr = '';
  const code = runDumpLog(argv, {
    stdoutLine: (line) => stdout.push(line),
    stderrText: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

// Batch layout (records package): CRC at byte 17 covers bytes 21 to the end of the batch.
const CRC_OFFSET = 17;
const CRC_START = 21;

function rewriteCrc(file: Buffer, batchPosition: number, batchSize: number): void {
  const batch = file.subarray(batchPosition, batchPosition + batchSize);
  batch.writeUInt32BE(crc32c(batch.subarray(CRC_START)), CRC_OFFSET);
}

let fixture: MetadataLogFixture;
beforeAll(async () => {
  fixture = await writeMetadataLogFixture();
});
afterAll(() => rmSync(fixture.directory, { recursive: true, force: true }));

/** A copy of the fixture segment, changed by `damage`, named like a segment. */
function damagedCopy(name: string, damage: (bytes: Buffer) => Buffer): string {
  const path = join(fixture.directory, name);
  copyFileSync(fixture.segmentPath, path);
  writeFileSync(path, damage(readFileSync(path)));
  return path;
}

describe('kraft-dump-log on a segment written by the log package', () => {
  it('prints each batch and its decoded control and metadata records as text', () => {
    const run = dump('--cluster-metadata-decoder', '--files', fixture.segmentPath);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual([
      `Dumping ${fixture.segmentPath}`,
      'Log starting offset: 0',
      expect.stringMatching(
        /^baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 1 isTransactional: false isControl: true position: 0 CreateTime: 1700000000000 size: 91 magic: 2 compresscodec: none crc: \d+ isvalid: true$/,
      ),
      '| offset: 0 CreateTime: 1700000000000 keySize: 4 valueSize: 19 sequence: -1 headerKeys: [] LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}',
      expect.stringMatching(
        /^baseOffset: 1 lastOffset: 3 count: 3 .* isControl: false position: 91 .* isvalid: true$/,
      ),
      '| offset: 1 CreateTime: 1700000000000 keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":21}}',
      '| offset: 2 CreateTime: 1700000000000 keySize: -1 valueSize: 27 sequence: -1 headerKeys: [] payload: {"type":"TOPIC_RECORD","version":0,"data":{"name":"events","topicId":"b8tRS7h4TJ2Vt43Dp85v2A"}}',
      '| offset: 3 CreateTime: 1700000000000 keySize: -1 valueSize: 24 sequence: -1 headerKeys: [] payload: {"type":"PRODUCER_IDS_RECORD","version":0,"data":{"brokerId":1,"brokerEpoch":7,"nextProducerId":4611686018427387904}}',
    ]);
  });

  it('prints one JSON object per batch with --json, int64 values exact', () => {
    const run = dump('--json', '--files', fixture.segmentPath);
    expect(run.code).toBe(0);
    expect(run.stdout).toHaveLength(2);
    const [control, data] = run.stdout.map((line) => JSON.parse(line));
    expect(control).toMatchObject({
      file: fixture.segmentPath,
      baseOffset: 0,
      isControl: true,
      crcValid: true,
      records: [{ offset: 0, control: 'LeaderChange', data: { leaderId: 1 } }],
    });
    expect(data).toMatchObject({
      baseOffset: 1,
      lastOffset: 3,
      count: 3,
      partitionLeaderEpoch: 1,
      producerId: -1,
      position: 91,
      sizeInBytes: 156,
      records: [
        { offset: 1, type: 'FEATURE_LEVEL_RECORD', version: 0 },
        { offset: 2, type: 'TOPIC_RECORD', data: { name: 'events' } },
        { offset: 3, type: 'PRODUCER_IDS_RECORD' },
      ],
    });
    expect(run.stdout[1]).toContain('"nextProducerId":4611686018427387904}');
  });

  it('dumps a snapshot: header, records and footer, after the snapshot id its name holds', () => {
    const run = dump('--files', fixture.snapshotPath);
    expect(run.code).toBe(0);
    expect(run.stdout[1]).toBe('Snapshot end offset: 4, epoch: 1');
    const records = run.stdout.filter((line) => line.startsWith('| '));
    expect(records.map((line) => line.replace(/^.*headerKeys: \[\] /, '').replace(/[:{].*$/, ''))).toEqual([
      'SnapshotHeader',
      'payload',
      'payload',
      'payload',
      'SnapshotFooter',
    ]);
    expect(records[0]).toContain('SnapshotHeader: {"version":0,"lastContainedLogTimestamp":1700000000000}');
  });

  it('dumps several files in order', () => {
    const run = dump('--files', `${fixture.segmentPath},${fixture.snapshotPath}`);
    expect(run.code).toBe(0);
    expect(run.stdout.filter((line) => line.startsWith('Dumping '))).toEqual([
      `Dumping ${fixture.segmentPath}`,
      `Dumping ${fixture.snapshotPath}`,
    ]);
  });
});

describe('kraft-dump-log on bad bytes', () => {
  it('stops at a batch whose CRC does not match, naming the file and its position, exit 1', () => {
    const path = damagedCopy('00000000000000000100.log', (bytes) => {
      bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 0xff;
      return bytes;
    });
    const run = dump('--files', path);
    expect(run.code).toBe(BAD_FILE_EXIT_CODE);
    expect(run.stderr).toMatch(
      new RegExp(`^kraft-dump-log: ${path}: at byte 91: batch at offset 1: CRC \\d+ does not match`),
    );
    // The good batch before it was printed, and the bad batch's header shows isvalid: false.
    expect(run.stdout.filter((line) => line.startsWith('| '))).toHaveLength(1);
    expect(run.stdout.at(-1)).toMatch(/isvalid: false$/);
  });

  it('names the byte of a metadata record that does not decode under a valid CRC', () => {
    const topicValue = MetadataRecordSerde.INSTANCE.serialize(FIXTURE_RECORDS[1]!);
    let valueStart = -1;
    const path = damagedCopy('00000000000000000200.log', (bytes) => {
      valueStart = bytes.indexOf(topicValue);
      // Record type 2 becomes 6, a type Kafka removed: no metadata record has it.
      bytes[valueStart + 1] = 6;
      rewriteCrc(bytes, 91, 156);
      return bytes;
    });
    const run = dump('--files', path);
    expect(run.code).toBe(BAD_FILE_EXIT_CODE);
    expect(run.stderr).toBe(
      `kraft-dump-log: ${path}: at byte ${valueStart + 3}: metadata record at offset 2: unknown metadata record type 6`,
    );
  });

  it('refuses a file cut inside its last batch, naming where the partial batch starts', () => {
    const path = damagedCopy('00000000000000000300.log', (bytes) => bytes.subarray(0, bytes.length - 10));
    const run = dump('--files', path);
    expect(run.code).toBe(BAD_FILE_EXIT_CODE);
    expect(run.stderr).toContain(`${path}: at byte 91: 146 bytes after the last whole batch`);
  });

  it('refuses a batch header with an impossible length', () => {
    const path = damagedCopy('00000000000000000400.log', (bytes) => {
      bytes.writeInt32BE(3, 91 + 8);
      return bytes;
    });
    const run = dump('--files', path);
    expect(run.code).toBe(BAD_FILE_EXIT_CODE);
    expect(run.stderr).toContain(`${path}: at byte 91: batch length 3 is below the 49-byte minimum`);
  });

  it('names a file that does not exist', () => {
    const path = join(fixture.directory, 'missing.log');
    const run = dump('--files', path);
    expect(run.code).toBe(BAD_FILE_EXIT_CODE);
    expect(run.stderr).toContain(`kraft-dump-log: ${path}: at byte 0:`);
  });
});

describe('kraft-dump-log command line', () => {
  it.each([
    [[]],
    [['--files']],
    [['--files', ',']],
    [['--files', 'a.log', '--bogus']],
    [['--files', 'a.log', 'extra']],
  ])('exits 2 with the usage for %j', (argv) => {
    const run = dump(...argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: kraft-dump-log.sh [options]');
    expect(run.stdout).toEqual([]);
  });

  it('prints the usage on stdout for --help and exits 0', () => {
    const run = dump('--help');
    expect(run.code).toBe(0);
    expect(run.stdout.join('\n')).toContain('--files <files>');
  });
});
