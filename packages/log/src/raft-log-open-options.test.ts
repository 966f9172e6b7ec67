import { InvalidConfigurationError } from '@kraft/protocol';
import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { LogConfig } from './config/log-config.js';
import { RaftLog, type RaftLogOpenOptions } from './raft-log.js';

const DIR = '/data/metadata';

/** Opens with options a JavaScript caller could pass (no type checking), on a fresh disk. */
function openUnchecked(options: Record<string, unknown>): {
  attempt: () => RaftLog;
  fileSystem: MemoryFileSystem;
} {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  const attempt = (): RaftLog =>
    RaftLog.open({ dir: DIR, fileSystem, ...options } as unknown as RaftLogOpenOptions);
  return { attempt, fileSystem };
}

function expectRefused(options: Record<string, unknown>, message: RegExp): void {
  const { attempt, fileSystem } = openUnchecked(options);
  expect(attempt).toThrow(InvalidConfigurationError);
  expect(attempt).toThrow(message);
  // Refused at the call: not even the lock file was created.
  expect(fileSystem.exists(`${DIR}/.lock`)).toBe(false);
}

describe('RaftLog.open options from JavaScript callers', () => {
  it('refuses a plain object as config, naming the option', () => {
    expectRefused({ config: {} }, /^RaftLog\.open: config must be a LogConfig .*, got a plain object$/);
    expectRefused({ config: { segmentBytes: 1 << 24 } }, /config must be a LogConfig/);
  });

  it('refuses a missing, empty or non-string dir', () => {
    expectRefused({ dir: undefined }, /RaftLog\.open: dir must be a non-empty string, got undefined/);
    expectRefused({ dir: '' }, /dir must be a non-empty string, got ''/);
    expectRefused({ dir: 42 }, /dir must be a non-empty string, got 42/);
  });

  it('refuses ports and values of the wrong shape', () => {
    expectRefused({ fileSystem: {} }, /RaftLog\.open: fileSystem must have the methods open, exists/);
    expectRefused(
      { logger: console },
      /RaftLog\.open: logger must have the methods fatal, child, isLevelEnabled/,
    );
    expectRefused(
      { topicPartition: 'metadata' },
      /topicPartition must be <topic>-<partition>, got 'metadata'/,
    );
    expectRefused(
      { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
      /topicId must be a Uuid, got 'AAAAAAAAAAAAAAAAAAAAAQ'/,
    );
    expectRefused({ time: 1_700_000_000_000 }, /time must be a function, got 1700000000000/);
    expectRefused({ lock: { directory: DIR } }, /lock must be a LogDirectoryLock, got a plain object/);
    expectRefused(
      { lostFlushedData: 'truncate' },
      /lostFlushedData must be one of refuse, recover-from-quorum, accept-loss, got "truncate"/,
    );
  });

  it('refuses a missing options object', () => {
    expect(() => RaftLog.open(undefined as unknown as RaftLogOpenOptions)).toThrow(
      /RaftLog\.open must be an options object, got undefined/,
    );
  });

  it('still opens with valid options', () => {
    const { attempt } = openUnchecked({
      config: new LogConfig(),
      topicPartition: 'my-topic-3',
      time: () => 0,
    });
    attempt().close();
  });
});

describe('LogConfig options from JavaScript callers', () => {
  it('refuses NaN, strings and non-booleans, naming the Kafka key', () => {
    const make = (options: unknown) => () => new LogConfig(options as never);
    expect(make({ segmentMs: Number.NaN })).toThrow(
      /metadata\.log\.segment\.ms must be an integer in .*, got NaN/,
    );
    expect(make({ segmentBytes: '16777216' })).toThrow(
      /metadata\.log\.segment\.bytes must be an integer in .*, got '16777216'/,
    );
    expect(make({ segmentBytes: Number.NaN })).toThrow(/metadata\.log\.segment\.bytes .*got NaN/);
    expect(make({ retentionMs: -2 })).toThrow(/metadata\.max\.retention\.ms must be an integer in \[-1, /);
    expect(make({ preallocate: 'true' })).toThrow(/log\.preallocate must be true or false, got 'true'/);
    expect(make(null)).toThrow(/LogConfig options must be an options object, got null/);
    expect(make({ segmentMs: Number.NaN })).toThrow(InvalidConfigurationError);
  });
});
