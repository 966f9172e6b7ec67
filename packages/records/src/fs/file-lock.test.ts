import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSystemError } from '../errors/file-system-error.js';
import type { FileSystem } from './file-system.js';
import { MemoryFileSystem } from './memory-file-system.js';
import { NodeFileSystem } from './node-file-system.js';

interface LockFixture {
  readonly fileSystem: FileSystem;
  readonly dir: string;
  cleanup(): void;
}

function memoryLockFixture(): LockFixture {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir('/data');
  return { fileSystem, dir: '/data', cleanup: () => {} };
}

function nodeLockFixture(): LockFixture {
  const dir = mkdtempSync(join(tmpdir(), 'kraft-lock-'));
  return {
    fileSystem: new NodeFileSystem(),
    dir,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe.each([
  ['MemoryFileSystem', memoryLockFixture],
  ['NodeFileSystem', nodeLockFixture],
])('tryLockFile on %s', (_name, makeFixture) => {
  let fixture: LockFixture;
  afterEach(() => fixture.cleanup());

  it('creates the file and refuses a second lock on it until the first is released', () => {
    fixture = makeFixture();
    const path = `${fixture.dir}/.lock`;
    const first = fixture.fileSystem.tryLockFile(path);
    expect(first?.isHeld()).toBe(true);
    expect(fixture.fileSystem.exists(path)).toBe(true);
    expect(fixture.fileSystem.tryLockFile(path)).toBeUndefined();
    first?.release();
    expect(first?.isHeld()).toBe(false);
    first?.release();
    const second = fixture.fileSystem.tryLockFile(path);
    expect(second?.isHeld()).toBe(true);
    second?.release();
    expect(fixture.fileSystem.exists(path)).toBe(true);
  });

  it('locks each file on its own', () => {
    fixture = makeFixture();
    const left = fixture.fileSystem.tryLockFile(`${fixture.dir}/left.lock`);
    const right = fixture.fileSystem.tryLockFile(`${fixture.dir}/right.lock`);
    expect(left?.isHeld()).toBe(true);
    expect(right?.isHeld()).toBe(true);
    left?.release();
    right?.release();
  });

  it('fails with ENOENT when the directory is missing', () => {
    fixture = makeFixture();
    const attempt = (): unknown => fixture.fileSystem.tryLockFile(`${fixture.dir}/missing/.lock`);
    expect(attempt).toThrow(FileSystemError);
    expect(attempt).toThrow(/ENOENT/);
  });
});

describe('MemoryFileSystem locks and crashes', () => {
  it('a crash releases every lock, as the death of the process does', () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/data');
    const beforeCrash = fileSystem.tryLockFile('/data/.lock');
    fileSystem.crash();
    expect(beforeCrash?.isHeld()).toBe(false);
    const afterCrash = fileSystem.tryLockFile('/data/.lock');
    expect(afterCrash?.isHeld()).toBe(true);
    // The dead incarnation's handle must not free the next one's lock.
    beforeCrash?.release();
    expect(afterCrash?.isHeld()).toBe(true);
    expect(fileSystem.tryLockFile('/data/.lock')).toBeUndefined();
  });
});

describe('NodeFileSystem locks across processes', () => {
  const nativeModulePath = createRequire(import.meta.url).resolve('fs-native-extensions');
  /** A child that tries the same OS lock, prints `locked` or `busy`, and holds it for `holdMs`. */
  const childScript = (path: string, holdMs: number): string => `
    const fs = require('node:fs');
    const locks = require(${JSON.stringify(nativeModulePath)});
    const fd = fs.openSync(${JSON.stringify(path)}, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644);
    const locked = locks.tryLock(fd);
    process.stdout.write(locked ? 'locked\\n' : 'busy\\n');
    if (locked) setTimeout(() => {}, ${holdMs});
  `;
  let fixture: LockFixture;
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
    fixture.cleanup();
  });

  it('another process cannot take a held lock', () => {
    fixture = nodeLockFixture();
    const path = join(fixture.dir, '.lock');
    const lock = fixture.fileSystem.tryLockFile(path);
    const result = spawnSync(process.execPath, ['-e', childScript(path, 0)], { encoding: 'utf8' });
    expect(result.stdout.trim()).toBe('busy');
    lock?.release();
    const afterRelease = spawnSync(process.execPath, ['-e', childScript(path, 0)], { encoding: 'utf8' });
    expect(afterRelease.stdout.trim()).toBe('locked');
  });

  it('the lock of a process killed with SIGKILL is free at once', async () => {
    fixture = nodeLockFixture();
    const path = join(fixture.dir, '.lock');
    const holder = spawn(process.execPath, ['-e', childScript(path, 60_000)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = holder;
    const firstLine = await new Promise<string>((resolve) =>
      holder.stdout?.once('data', (data) => resolve(String(data))),
    );
    expect(firstLine.trim()).toBe('locked');
    expect(fixture.fileSystem.tryLockFile(path)).toBeUndefined();
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    const lock = fixture.fileSystem.tryLockFile(path);
    expect(lock?.isHeld()).toBe(true);
    expect(existsSync(path)).toBe(true);
    lock?.release();
  });
});
