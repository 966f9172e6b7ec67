import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { segmentFileStem } from '@kraft/log';
import { FileRecords, MemoryRecordsBuilder } from '@kraft/records';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CommittedLog,
  committedRecords,
  compareCommittedLogs,
  RAFT_NODE_PARTITION_DIRECTORY,
  readCommittedLog,
} from './committed-log.js';

function taggedValue(sequence: number): Buffer {
  const value = Buffer.alloc(20);
  value.writeInt32BE(1, 0);
  value.writeInt32BE(2, 4);
  value.writeBigInt64BE(BigInt(sequence), 8);
  return value;
}

/** A segment per entry of `segments`, each a list of batches given by their record counts. */
function writeLog(
  directory: string,
  segments: readonly (readonly number[])[],
  partitionDirectory = '__raft_performance_test-0',
): void {
  const partition = join(directory, partitionDirectory);
  mkdirSync(partition, { recursive: true });
  let offset = 0;
  for (const batchCounts of segments) {
    const records = FileRecords.open(join(partition, `${segmentFileStem(offset)}.log`));
    for (const count of batchCounts) {
      const builder = new MemoryRecordsBuilder({ baseOffset: offset, partitionLeaderEpoch: 2 });
      for (let index = 0; index < count; index++) {
        builder.append({ timestamp: 0, value: taggedValue(offset + index) });
      }
      records.append(builder.build());
      offset += count;
    }
    records.close();
  }
}

describe('readCommittedLog', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  function logDirectory(): string {
    const directory = mkdtempSync(join(tmpdir(), 'kraft-committed-log-'));
    directories.push(directory);
    return directory;
  }

  it('returns the batches that start below the committed offset, across segments, and no record at or past it', () => {
    const directory = logDirectory();
    writeLog(directory, [
      [2, 2],
      [3, 1],
    ]);
    const log = readCommittedLog(directory, 5, 1024 * 1024);
    // Offsets 0-1, 2-3 and 4-6 (straddling 5); the batch at 7 and everything after are not read.
    expect(log.batches.map((batch) => [batch.baseOffset, batch.lastOffset])).toEqual([
      [0, 1],
      [2, 3],
      [4, 6],
    ]);
    expect(log.endOffset).toBe(7);
    expect(committedRecords(log.batches, 5).map((record) => [record.offset, record.tag?.sequence])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
  });

  it('leaves out a trailing partial batch', () => {
    const directory = logDirectory();
    writeLog(directory, [[2, 2]]);
    appendFileSync(
      join(directory, '__raft_performance_test-0', `${segmentFileStem(0)}.log`),
      Buffer.alloc(30),
    );
    const log = readCommittedLog(directory, 100, 1024 * 1024);
    expect(log.batches).toHaveLength(2);
    expect(log.endOffset).toBe(4);
  });

  it('refuses a committed log larger than its byte bound instead of holding it', () => {
    const directory = logDirectory();
    writeLog(directory, [[2, 2, 2]]);
    const oneBatch = readCommittedLog(directory, 1, 1024 * 1024).batches[0]?.bytes.length ?? 0;
    expect(readCommittedLog(directory, 6, 3 * oneBatch).batches).toHaveLength(3);
    expect(() => readCommittedLog(directory, 6, 3 * oneBatch - 1)).toThrow(RangeError);
  });
});

describe('compareCommittedLogs', () => {
  const batch = (baseOffset: number, lastOffset: number, byte: number) => ({
    baseOffset,
    lastOffset,
    bytes: Buffer.alloc(8, byte),
  });
  const log = (...batches: ReturnType<typeof batch>[]): CommittedLog => ({
    batches,
    endOffset: (batches.at(-1)?.lastOffset ?? -1) + 1,
  });

  it('passes equal prefixes held by a majority, a lagging node included, and returns the longest log', () => {
    const full = log(batch(0, 1, 1), batch(2, 3, 2));
    const { reference, problems } = compareCommittedLogs(
      new Map([
        [1, full],
        [2, log(batch(0, 1, 1), batch(2, 3, 2))],
        [3, log(batch(0, 1, 1))],
      ]),
      4,
    );
    expect(problems).toEqual([]);
    expect(reference).toBe(full);
  });

  it('names the node whose batch differs and a committed log no majority holds', () => {
    const { problems } = compareCommittedLogs(
      new Map([
        [1, log(batch(0, 1, 1), batch(2, 3, 2))],
        [2, log(batch(0, 1, 1), batch(2, 3, 9))],
        [3, log(batch(0, 1, 1))],
      ]),
      4,
    );
    expect(problems).toEqual(["node 2's committed log differs from node 1's at the batch of offset 2"]);
    const short = compareCommittedLogs(
      new Map([
        [1, log(batch(0, 1, 1), batch(2, 3, 2))],
        [2, log(batch(0, 1, 1))],
        [3, log()],
      ]),
      4,
    );
    expect(short.problems).toEqual(['only 1 of 3 nodes hold the committed log up to 4']);
  });

  it('compares logs whose starts differ (retention) batch by base offset', () => {
    const { problems } = compareCommittedLogs(
      new Map([
        [1, log(batch(4, 5, 3), batch(6, 7, 4))],
        [2, log(batch(0, 1, 1), batch(2, 3, 2), batch(4, 5, 3))],
        [3, log(batch(2, 3, 2), batch(4, 5, 3), batch(6, 7, 4))],
      ]),
      8,
    );
    expect(problems).toEqual([]);
    const differing = compareCommittedLogs(
      new Map([
        [1, log(batch(4, 5, 3), batch(6, 7, 4))],
        [2, log(batch(0, 1, 1), batch(2, 3, 2), batch(4, 5, 3))],
        [3, log(batch(2, 3, 9), batch(4, 5, 3), batch(6, 7, 4))],
      ]),
      8,
    );
    expect(differing.problems).toEqual([
      "node 3's committed log differs from node 2's at the batch of offset 2",
    ]);
  });

  it('finds a batch boundary the longest log does not have', () => {
    const { problems } = compareCommittedLogs(
      new Map([
        [1, log(batch(0, 3, 1), batch(4, 5, 3))],
        [2, log(batch(0, 1, 1), batch(2, 3, 2), batch(4, 5, 3))],
        [3, log(batch(0, 3, 1), batch(4, 5, 3))],
      ]),
      6,
    );
    expect(problems).toEqual(["node 2's committed log differs from node 1's at the batch of offset 2"]);
  });
});

describe('readCommittedLog of a RaftNode directory', () => {
  it("reads the kv-store's __cluster_metadata-0 partition when told to", () => {
    const directory = mkdtempSync(join(tmpdir(), 'kraft-committed-log-'));
    try {
      writeLog(directory, [[2, 1]], RAFT_NODE_PARTITION_DIRECTORY);
      expect(readCommittedLog(directory, 3, 1024 * 1024, RAFT_NODE_PARTITION_DIRECTORY).endOffset).toBe(3);
      expect(() => readCommittedLog(directory, 3, 1024 * 1024)).toThrow(/ENOENT/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
