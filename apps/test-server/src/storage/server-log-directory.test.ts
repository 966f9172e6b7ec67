import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Uuid } from '@kraft/protocol';
import { buildControlBatch, ControlRecordType, NodeFileSystem } from '@kraft/records';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BOOTSTRAP_CHECKPOINT_FILE,
  bootstrapCheckpointBytes,
  votersRecordOf,
} from './bootstrap-checkpoint.js';
import { readServerBootstrapCheckpoint } from './server-log-directory.js';
import { UnsupportedKRaftVersionError } from './unsupported-kraft-version-error.js';

const PARTITION = '__raft_performance_test-0';
const VOTERS = [
  { nodeId: 1, host: '127.0.0.1', port: 9001, directoryId: Uuid.fromString('Nkij_D9XRiYKNb41SiJo7Q') },
];

/** A checkpoint laid out as the formatter's, with `kraftVersion` in its KRaftVersionRecord. */
function checkpointAt(kraftVersion: number): Buffer {
  const options = (baseOffset: number) => ({ baseOffset, partitionLeaderEpoch: 0, timestamp: 1 });
  return Buffer.concat([
    buildControlBatch(options(0), [
      { type: ControlRecordType.SNAPSHOT_HEADER, message: { version: 0, lastContainedLogTimestamp: 1n } },
      { type: ControlRecordType.KRAFT_VERSION, message: { version: 0, kRaftVersion: kraftVersion } },
      { type: ControlRecordType.KRAFT_VOTERS, message: votersRecordOf(VOTERS, 'PLAINTEXT') },
    ]).buffer(),
    buildControlBatch(options(3), [
      { type: ControlRecordType.SNAPSHOT_FOOTER, message: { version: 0 } },
    ]).buffer(),
  ]);
}

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'kraft-server-dir-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

function write(partition: string, bytes: Buffer): string {
  mkdirSync(join(directory, partition), { recursive: true });
  const path = join(directory, partition, BOOTSTRAP_CHECKPOINT_FILE);
  writeFileSync(path, bytes);
  return path;
}

describe('readServerBootstrapCheckpoint', () => {
  const read = () => readServerBootstrapCheckpoint(new NodeFileSystem(), directory, PARTITION);

  it('gives the kraft.version 1 checkpoint of the server partition, voters included', () => {
    const path = write(
      PARTITION,
      bootstrapCheckpointBytes({ voters: VOTERS, listenerName: 'PLAINTEXT', timestampMs: 1 }),
    );
    expect(read()).toMatchObject({ path, kraftVersion: 1, voters: [{ voterId: 1 }] });
  });

  it('gives nothing for a dir without a checkpoint (a static quorum, --no-initial-controllers)', () => {
    expect(read()).toBeUndefined();
  });

  it('refuses a kraft.version above 1, naming the file', () => {
    const path = write(PARTITION, checkpointAt(2));
    let thrown: unknown;
    try {
      read();
    } catch (error) {
      thrown = error;
    }
    expect(UnsupportedKRaftVersionError.isUnsupportedKRaftVersionError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ path, kraftVersion: 2 });
  });

  it('accepts kraft.version 1 written by hand the same way (the limit is 1, not the formatter)', () => {
    write(PARTITION, checkpointAt(1));
    expect(read()?.kraftVersion).toBe(1);
  });
});
