import type { MemoryFileSystem } from '@kraft/records';
import { afterEach, describe, expect, it } from 'vitest';
import { type FileSystemFixture, memoryFixture, nodeFixture } from '../../test/support/log-fixtures.js';
import { InvalidConfigurationError, LogDirectoryLockedError } from '../errors/log-errors.js';
import { LOCK_FILE, LogDirectoryLock } from './log-directory-lock.js';
import { PARTITION_METADATA_FILE } from './partition-metadata-file.js';

describe.each([
  ['MemoryFileSystem', memoryFixture],
  ['NodeFileSystem', nodeFixture],
])('log directory lock on %s', (_name, makeFixture) => {
  let fixture: FileSystemFixture;
  afterEach(() => fixture.cleanup());

  it('RaftLog.open locks <dir>/.lock and refuses a second log on the same directory, naming it', () => {
    fixture = makeFixture();
    const log = fixture.open();
    expect(fixture.fileSystem.exists(`${fixture.dir}/${LOCK_FILE}`)).toBe(true);
    expect(() => fixture.open()).toThrow(LogDirectoryLockedError);
    expect(() => fixture.open()).toThrow(
      `Failed to acquire lock on file .lock in ${fixture.dir}. A Kafka instance in another process or thread is using this directory.`,
    );
    log.close();
    fixture.open().close();
  });

  it('takes the lock before reading anything', () => {
    fixture = makeFixture();
    const holder = LogDirectoryLock.acquire(fixture.fileSystem, fixture.dir);
    fixture.fileSystem.mkdir(`${fixture.dir}/__cluster_metadata-0`);
    writeText(fixture, `${fixture.dir}/__cluster_metadata-0/${PARTITION_METADATA_FILE}`, 'not metadata');
    // A corrupt partition.metadata would fail with InvalidConfigurationError if it were read.
    expect(() => fixture.open()).toThrow(LogDirectoryLockedError);
    holder.release();
  });

  it('releases its lock when open fails', () => {
    fixture = makeFixture();
    fixture.fileSystem.mkdir(`${fixture.dir}/__cluster_metadata-0`);
    writeText(fixture, `${fixture.dir}/__cluster_metadata-0/${PARTITION_METADATA_FILE}`, 'not metadata');
    expect(() => fixture.open()).toThrow(InvalidConfigurationError);
    LogDirectoryLock.acquire(fixture.fileSystem, fixture.dir).release();
  });

  it("uses a caller's lock on the directory and leaves it held after close", () => {
    fixture = makeFixture();
    const lock = LogDirectoryLock.acquire(fixture.fileSystem, fixture.dir);
    expect(() => LogDirectoryLock.acquire(fixture.fileSystem, fixture.dir)).toThrow(LogDirectoryLockedError);
    const log = fixture.open({ lock });
    log.close();
    expect(lock.isHeld()).toBe(true);
    expect(() => fixture.open()).toThrow(LogDirectoryLockedError);
    lock.release();
    fixture.open().close();
  });

  it('refuses a lock on another directory or one already released', () => {
    fixture = makeFixture();
    fixture.fileSystem.mkdir(`${fixture.dir}/other`);
    const other = LogDirectoryLock.acquire(fixture.fileSystem, `${fixture.dir}/other`);
    expect(() => fixture.open({ lock: other })).toThrow(InvalidConfigurationError);
    other.release();
    const released = LogDirectoryLock.acquire(fixture.fileSystem, fixture.dir);
    released.release();
    expect(() => fixture.open({ lock: released })).toThrow(/released/);
    expect(LogDirectoryLock.acquire(fixture.fileSystem, `${fixture.dir}/`).isFor(fixture.dir)).toBe(true);
  });
});

describe('log directory lock on MemoryFileSystem crashes', () => {
  it('a crash releases the lock, so the restarted log opens', () => {
    const fixture = memoryFixture();
    fixture.open();
    fixture.fileSystem.crash();
    fixture.open().close();
  });

  it('close releases the lock even when closing the log fails', () => {
    const fixture = memoryFixture();
    const log = fixture.open();
    (fixture.fileSystem as MemoryFileSystem).injectFault('sync');
    expect(() => log.close()).toThrow(/EIO/);
    LogDirectoryLock.acquire(fixture.fileSystem, fixture.dir).release();
  });
});

function writeText(fixture: FileSystemFixture, path: string, text: string): void {
  const handle = fixture.fileSystem.open(path, { create: true });
  handle.write(Buffer.from(text), 0);
  handle.close();
}
